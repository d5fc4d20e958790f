package dev.weft.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Issue 31, item 7: {@code metrics.bind: 999.1.1.1} was accepted and every worker then failed blaming metrics.port. */
class EndpointHostTest {
  @Test
  void addressesAndHostNamesPass() {
    for (String h : new String[] {"127.0.0.1", "0.0.0.0", "10.255.0.9", "::1", "[::1]", "fe80::1%eth0", "localhost",
        "etcd-0.etcd.default.svc", "my_host", "db1"}) {
      assertThat(Endpoint.requireHost(h, "metrics.bind")).isEqualTo(h);
    }
    assertThat(Endpoint.parse("[::1]:29400", "x").port()).isEqualTo(29400);
  }

  @Test
  void whatCannotNameAMachineIsRefusedByField() {
    for (String h : new String[] {"999.1.1.1", "1.2.3", "1.2.3.4.5", "256.0.0.1", "no such host", "-bad", "a..b", "::g", "",
        "x".repeat(64)}) {
      assertThatThrownBy(() -> Endpoint.requireHost(h, "metrics.bind")).as(h).isInstanceOf(SpecException.class)
          .hasMessageStartingWith("metrics.bind: ");
    }
    assertThatThrownBy(() -> Endpoint.parse("999.1.1.1:29400", "elastic.rdzvEndpoint"))
        .hasMessageStartingWith("elastic.rdzvEndpoint: ").hasMessageContaining("999.1.1.1");
  }
}
