package dev.weft.s3.fetch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** Where a fetch copies from: lists its objects and streams one of them from a byte offset. */
public interface FetchSource {
  /** Every object to copy, in a stable order. */
  List<SourceObject> list() throws IOException;

  /** The bytes of {@code o} from {@code offset} to its end. */
  InputStream open(SourceObject o, long offset) throws IOException;

  /** The POSIX permissions of {@code o} where the source has them: its copy gets none it lacks. */
  default Optional<Set<PosixFilePermission>> permissions(SourceObject o) throws IOException { return Optional.empty(); }

  /** The source as the user wrote it, for messages. */
  String describe();
}
