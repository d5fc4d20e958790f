package dev.weft.models.decoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.models.hf.HfReference;
import dev.weft.spec.SpecException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RoPE scaling frequencies, in both config.json spellings, agree with the NumPy reference of transformers' rules. */
class RopeScalingTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final List<String> CONFIGS = List.of(
      "{\"rope_theta\": 500000.0, \"max_position_embeddings\": 131072, \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 32.0,"
          + " \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 8192}}",
      "{\"rope_parameters\": {\"rope_type\": \"llama3\", \"rope_theta\": 500.0, \"factor\": 8.0, \"low_freq_factor\": 1.0,"
          + " \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 16}, \"max_position_embeddings\": 64}",
      "{\"rope_theta\": 10000.0, \"rope_scaling\": {\"type\": \"linear\", \"factor\": 4.0}}",
      "{\"rope_theta\": 10000.0, \"max_position_embeddings\": 16, \"rope_scaling\": {\"rope_type\": \"dynamic\", \"factor\": 2.0}}",
      "{\"rope_theta\": 1000000.0, \"max_position_embeddings\": 131072, \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4.0,"
          + " \"original_max_position_embeddings\": 32768}}",
      "{\"rope_theta\": 10000.0, \"max_position_embeddings\": 4096, \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 40.0,"
          + " \"mscale\": 1.0, \"mscale_all_dim\": 0.707, \"beta_fast\": 32, \"beta_slow\": 1, \"original_max_position_embeddings\": 4096}}",
      "{\"rope_theta\": 10000.0, \"max_position_embeddings\": 4096, \"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 8.0,"
          + " \"attention_factor\": 1.3, \"truncate\": false, \"original_max_position_embeddings\": 2048}}",
      "{\"rope_parameters\": {\"rope_type\": \"default\", \"rope_theta\": 1000000.0}}");

  @Test
  void inverseFrequenciesMatchTheReference() throws Exception {
    ArrayNode cases = JSON.createArrayNode();
    for (String c : CONFIGS) {
      for (int[] dimSeq : new int[][] {{64, 8}, {128, 40}, {16, 100}}) {
        ObjectNode n = cases.addObject();
        n.set("config", JSON.readTree(c));
        n.put("head_dim", dimSeq[0]).put("seq_len", dimSeq[1]);
      }
    }
    JsonNode ref = HfReference.ropeReference(cases.toString());
    for (int i = 0; i < cases.size(); i++) {
      JsonNode c = cases.get(i);
      RopeScaling r = RopeScaling.of(c.get("config"), "model.pretrained");
      double[] inv = r.inverseFrequencies(c.get("head_dim").asInt(), c.get("seq_len").asLong());
      JsonNode want = ref.get(i).get("inv");
      assertThat(inv).as("case %s", c).hasSize(want.size());
      for (int j = 0; j < inv.length; j++) {
        assertThat(Math.abs(inv[j] - want.get(j).asDouble())).as("case %s, frequency %d", c, j)
            .isLessThanOrEqualTo(1e-12 * Math.abs(want.get(j).asDouble()));
      }
      assertThat(r.attentionFactor()).as("case %s", c).isCloseTo(ref.get(i).get("scale").asDouble(), org.assertj.core.data.Offset.offset(1e-12));
    }
  }

  @Test
  void scalingChangesWhatItShouldAndNothingElse() throws Exception {
    RopeScaling plain = RopeScaling.of(JSON.readTree("{\"rope_theta\": 500000.0}"), "f");
    RopeScaling llama3 = RopeScaling.of(JSON.readTree(CONFIGS.get(0)), "f");
    double[] a = plain.inverseFrequencies(64, 8), b = llama3.inverseFrequencies(64, 8);
    assertThat(b[0]).isEqualTo(a[0]); // the highest frequency is kept
    assertThat(b[31]).isCloseTo(a[31] / 32, org.assertj.core.data.Offset.offset(1e-18)); // the lowest is divided by factor
    RopeScaling dynamic = RopeScaling.of(JSON.readTree(CONFIGS.get(3)), "f");
    assertThat(dynamic.inverseFrequencies(16, 16)).isEqualTo(RopeScaling.plain(10000).inverseFrequencies(16, 16));
    assertThat(dynamic.inverseFrequencies(16, 17)[3]).isLessThan(dynamic.inverseFrequencies(16, 16)[3]);
  }

  @Test
  void anUnknownRopeTypeIsRefusedNamingIt() throws Exception {
    assertThatThrownBy(() -> RopeScaling.of(JSON.readTree("{\"rope_scaling\": {\"rope_type\": \"su\", \"factor\": 2}}"), "model.pretrained"))
        .isInstanceOf(SpecException.class).hasMessageContaining("rope_scaling.rope_type 'su' is not supported")
        .hasMessageContaining("llama3");
    assertThatThrownBy(() -> RopeScaling.of(JSON.readTree("{\"rope_parameters\": {\"rope_type\": \"longrope\"}}"), "model.pretrained"))
        .hasMessageContaining("rope_parameters.rope_type 'longrope'");
  }
}
