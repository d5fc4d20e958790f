package dev.weft.tracking;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.checkpoint.CheckpointStorage;
import dev.weft.checkpoint.RunRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An export's {@code lineage.json}: the lineage of the run that wrote the checkpoint (its run directory's, when the
 * checkpoints lie in it, else the run record's beside them, {@code s3://} included) with an {@code export} field
 * naming the checkpoint, step, format and directory. A run's own {@code lineage.json} on this machine also lists the
 * export under {@code exports}. A lineage that cannot be found or written is logged; the export stands.
 */
public final class ExportLineage {
  private static final Logger log = LoggerFactory.getLogger(ExportLineage.class);

  private ExportLineage() {}

  /**
   * @param storage the checkpoints' storage
   * @param stepDir the checkpoint's local directory ({@code step-NNNNNN}); null when it was downloaded
   * @param source the checkpoint as the user named it
   */
  public static void write(CheckpointStorage storage, Path stepDir, String source, long step, String format, Path out) {
    try {
      Path runFile = stepDir == null ? null : runLineage(stepDir);
      ObjectNode lineage = runFile != null ? Lineage.readOrNull(runFile) : fromRecord(storage, out);
      ObjectNode export = Lineage.MAPPER.createObjectNode();
      export.put("checkpoint", source);
      export.put("step", step);
      export.put("format", format);
      export.put("dir", out.toAbsolutePath().normalize().toString());
      if (lineage == null) {
        lineage = Lineage.MAPPER.createObjectNode();
        lineage.put("note", "the run's lineage.json was not found beside the checkpoint");
        log.warn("{}: no lineage.json of the run found beside {}; the export records only where it came from", out, source);
      }
      lineage.set("export", export);
      Lineage.write(lineage, out.resolve(Lineage.FILE));
      if (runFile != null && Files.isWritable(runFile)) {
        ObjectNode run = Lineage.readOrNull(runFile);
        if (run != null) {
          ArrayNode exports = run.has("exports") && run.get("exports").isArray() ? (ArrayNode) run.get("exports") : run.putArray("exports");
          exports.add(export);
          Lineage.write(run, runFile);
        }
      }
    } catch (RuntimeException e) {
      log.warn("{}: lineage.json not written: {}", out, e.getMessage());
    }
  }

  /** The run's lineage for a local checkpoint: the record beside the checkpoints, or the run dir holding them. */
  private static Path runLineage(Path stepDir) {
    Path root = stepDir.toAbsolutePath().normalize().getParent();
    List<Path> candidates = new ArrayList<>();
    candidates.add(root.resolve(RunRecord.DIR).resolve(Lineage.FILE));
    if (root.getParent() != null) candidates.add(root.getParent().resolve(Lineage.FILE));
    return candidates.stream().filter(Files::isRegularFile).findFirst().orElse(null);
  }

  private static ObjectNode fromRecord(CheckpointStorage storage, Path out) {
    Path tmp = out.resolve(Lineage.FILE + ".record");
    try {
      Files.createDirectories(out);
      return storage.getRecord(Lineage.FILE, tmp) ? Lineage.readOrNull(tmp) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    } finally {
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException ignored) {
        // a leftover copy is harmless
      }
    }
  }
}
