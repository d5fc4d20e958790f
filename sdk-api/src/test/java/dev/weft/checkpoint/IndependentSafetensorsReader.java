package dev.weft.checkpoint;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A minimal reader written from the published safetensors format, sharing no code with Weft's:
 * u64 little-endian N, N bytes of JSON {name: {dtype, shape, data_offsets}}, then the byte buffer
 * the offsets index. Reads F32 tensors as float arrays.
 */
final class IndependentSafetensorsReader {
  record Tensor(String dtype, long[] shape, float[] values) {}

  static Map<String, Tensor> readF32(Path file) throws IOException {
    byte[] all = Files.readAllBytes(file);
    ByteBuffer buf = ByteBuffer.wrap(all).order(ByteOrder.LITTLE_ENDIAN);
    long n = buf.getLong(0);
    JsonNode header = new ObjectMapper().readTree(new String(all, 8, (int) n, StandardCharsets.UTF_8));
    int base = 8 + (int) n;
    Map<String, Tensor> out = new LinkedHashMap<>();
    var it = header.fields();
    while (it.hasNext()) {
      var f = it.next();
      if (f.getKey().equals("__metadata__")) continue;
      JsonNode t = f.getValue();
      long[] shape = new long[t.get("shape").size()];
      for (int i = 0; i < shape.length; i++) shape[i] = t.get("shape").get(i).asLong();
      int begin = t.get("data_offsets").get(0).asInt(), end = t.get("data_offsets").get(1).asInt();
      float[] v = new float[(end - begin) / 4];
      if (t.get("dtype").asText().equals("F32")) {
        for (int i = 0; i < v.length; i++) v[i] = buf.getFloat(base + begin + 4 * i);
      }
      out.put(f.getKey(), new Tensor(t.get("dtype").asText(), shape, v));
    }
    return out;
  }

  private IndependentSafetensorsReader() {}
}
