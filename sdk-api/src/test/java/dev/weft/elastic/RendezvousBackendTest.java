package dev.weft.elastic;

import dev.weft.spec.Endpoint;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.Trainer;
import dev.weft.spec.SpecException;
import dev.weft.spec.TrainingSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Which backend and endpoint an agent uses: flag over spec over the backend's default. */
class RendezvousBackendTest {
  private static TrainingSpec spec(Trainer t) { return t.toSpec(); }

  private static Trainer tiny() { return Trainer.model("gpt").name("rb").globalBatch(4).steps(2); }

  @Test
  void theSpecPicksEtcdAndItsEndpointThroughTheDsl() {
    TrainingSpec s = spec(tiny().elastic(1, 2).rendezvous("etcd", "etcd.example:2379"));
    RendezvousBackend b = ElasticOptions.backend(s, null, "--rdzv-backend");
    assertThat(b).isEqualTo(RendezvousBackend.ETCD);
    assertThat(ElasticOptions.endpoint(s, b, null)).isEqualTo(new Endpoint("etcd.example", 2379));
    assertThat(ElasticOptions.endpoint(s, b, "10.0.0.9:2380")).isEqualTo(new Endpoint("10.0.0.9", 2380));
  }

  @Test
  void theFlagWinsAndEachBackendHasItsOwnDefaultPort() {
    TrainingSpec s = spec(tiny());
    assertThat(ElasticOptions.backend(s, null, "--rdzv-backend")).isEqualTo(RendezvousBackend.C10D);
    RendezvousBackend etcd = ElasticOptions.backend(s, "ETCD", "--rdzv-backend");
    assertThat(etcd).isEqualTo(RendezvousBackend.ETCD);
    assertThat(ElasticOptions.endpoint(s, etcd, null)).isEqualTo(new Endpoint("127.0.0.1", 2379));
    assertThat(ElasticOptions.endpoint(s, RendezvousBackend.C10D, null)).isEqualTo(new Endpoint("127.0.0.1", 29400));
  }

  @Test
  void theJoinWindowComesFromTheSpecUnlessTheFlagGivesOne() {
    TrainingSpec s = spec(tiny().elastic(2, 3).set("elastic.joinWindowSeconds", 30));
    int[] nodes = {2, 3};
    Endpoint at = new Endpoint("127.0.0.1", 29400);
    assertThat(ElasticOptions.of(s, nodes, 1, RendezvousBackend.C10D, at, "rb", null).joinWindow()).isEqualTo(Duration.ofSeconds(30));
    assertThat(ElasticOptions.of(s, nodes, 1, RendezvousBackend.C10D, at, "rb", Duration.ofSeconds(1)).joinWindow())
        .isEqualTo(Duration.ofSeconds(1));
    assertThat(ElasticOptions.of(spec(tiny()), nodes, 1, RendezvousBackend.C10D, at, "rb", null).joinWindow())
        .as("the default").isEqualTo(Duration.ofSeconds(2));
    assertThatThrownBy(() -> spec(tiny().set("elastic.joinWindowSeconds", -1))).isInstanceOf(SpecException.class)
        .hasMessageContaining("elastic.joinWindowSeconds");
  }

  @Test
  void mistakesNameTheFieldOrFlag() {
    assertThatThrownBy(() -> spec(tiny().rendezvous("zookeeper", ""))).isInstanceOf(SpecException.class)
        .hasMessageContaining("elastic.rdzvBackend").hasMessageContaining("c10d, etcd");
    assertThatThrownBy(() -> spec(tiny().rendezvous("etcd", "no-port"))).isInstanceOf(SpecException.class)
        .hasMessageContaining("elastic.rdzvEndpoint").hasMessageContaining("HOST:PORT");
    assertThatThrownBy(() -> RendezvousBackend.parse("static", "PET_RDZV_BACKEND")).hasMessageStartingWith("PET_RDZV_BACKEND:");
  }
}
