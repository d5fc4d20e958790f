package dev.weft.s3.fetch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** A directory on a mounted volume (a PVC): every regular file under it (but a fetch's own bookkeeping); sizes are checked, nothing vouches for a checksum. */
public record LocalSource(Path root) implements FetchSource {
  @Override
  public List<SourceObject> list() throws IOException {
    List<SourceObject> out = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
        String name = root.relativize(f).toString().replace(f.getFileSystem().getSeparator(), "/");
        if (Fetcher.isBookkeeping(name)) continue;
        out.add(new SourceObject(name, Files.size(f), Optional.empty(), Optional.empty(),
            Files.size(f) + "@" + Files.getLastModifiedTime(f).toMillis()));
      }
    }
    return out;
  }

  @Override
  public InputStream open(SourceObject o, long offset) throws IOException {
    FileChannel ch = FileChannel.open(root.resolve(o.name()), StandardOpenOption.READ);
    ch.position(offset);
    return Channels.newInputStream(ch);
  }

  @Override public String describe() { return root.toString(); }
}
