package dev.weft.models.hf;

import dev.weft.checkpoint.ConsolidatedWeights;
import dev.weft.checkpoint.SafetensorsWriter;
import dev.weft.models.ModelFactories;
import dev.weft.spec.SpecIO;
import dev.weft.spec.TrainingSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.bytedeco.pytorch.Tensor;

/**
 * Writes whole model weights as a Hugging Face directory: {@code model.safetensors} with Hugging
 * Face's tensor names and {@code config.json}, which {@code transformers}' from_pretrained loads.
 */
public final class HfExport {
  /** What was written. */
  public record Result(Path dir, int tensors, long bytes) {}

  private HfExport() {}

  public static Result write(Map<String, Tensor> weights, TrainingSpec spec, Path dir) throws IOException {
    HuggingFaceFormat hf = HuggingFaceFormat.of(ModelFactories.lookup(spec.model().factory()));
    Map<String, Tensor> out = hf.toHf(weights, spec);
    Files.createDirectories(dir);
    SafetensorsWriter.Written w = SafetensorsWriter.write(dir.resolve(HfCheckpoint.WEIGHTS), ConsolidatedWeights.items(out),
        Map.of("format", "pt"));
    Files.writeString(dir.resolve(HfCheckpoint.CONFIG),
        SpecIO.jsonMapper().writerWithDefaultPrettyPrinter().writeValueAsString(hf.hfConfig(spec)) + "\n");
    return new Result(dir, out.size(), w.bytes());
  }
}
