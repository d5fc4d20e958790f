package dev.weft.checkpoint;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** One rank's part of a save: its snapshot written as {@code rank-NNNNN.safetensors}, described for the manifest. */
final class ShardWriting {
  private ShardWriting() {}

  static ShardReport write(Path dir, int rank, Snapshot snap) throws IOException {
    if (snap.items().isEmpty()) return new ShardReport(rank, null, 0, null, List.of(), null);
    List<SafetensorsWriter.Item> items = new ArrayList<>();
    List<ShardReport.Written> pieces = new ArrayList<>();
    for (Snapshot.Item it : snap.items()) {
      TensorSlice s = it.slice();
      items.add(new SafetensorsWriter.Item(it.name(), it.dtype(), s.localShape(), it.host()));
      pieces.add(new ShardReport.Written(it.name(), it.dtype().safetensorsName(), s.globalShape(), s.offset(), s.shape(),
          s.flatStart(), s.flatLength()));
    }
    String name = CheckpointLayout.shardFileName(rank);
    SafetensorsWriter.Written w = SafetensorsWriter.write(dir.resolve(name), items,
        Map.of("format", "pt", "weft.rank", Integer.toString(rank)));
    return new ShardReport(rank, name, w.bytes(), w.sha256(), pieces, null);
  }
}
