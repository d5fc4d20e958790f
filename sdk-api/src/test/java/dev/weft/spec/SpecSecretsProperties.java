package dev.weft.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.weft.plan.SpecCheck;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Credentials are recognised by their shape in any field and by their names in environment maps, refused with one
 * line that names the field and points to deployment.secretEnv, and never repeated (issue 31 item 9).
 */
class SpecSecretsProperties {
  /** A field, a value holding {@code secret}, and the secret itself (which no message may contain). */
  record Leak(String field, String value, String secret) {}

  private static TrainingSpec withSet(String assignment) {
    ObjectNode tree = SpecIO.defaultsTree();
    SpecOverrides.apply(tree, "name=t");
    SpecOverrides.apply(tree, assignment);
    return SpecIO.bind(tree);
  }

  @Property(tries = 400)
  void aSecretShapedValueIsRefusedNamingTheFieldWithoutRepeatingIt(@ForAll("leaks") Leak leak) {
    TrainingSpec spec = withSet(leak.field() + "=" + leak.value());
    assertThatThrownBy(() -> SpecCheck.validate(spec)).as(leak.toString())
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith(leak.field() + ": ")
        .hasMessageContaining("deployment.secretEnv.")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain(leak.secret()).doesNotContain("\n"));
  }

  @Property(tries = 200)
  void ordinaryValuesAreLeftAlone(@ForAll("ordinary") String value) {
    assertThat(Credentials.inValue(value)).as(value).isEmpty();
  }

  @Example
  void theIssuesLeaksAreRefusedAndSpecYamlIsNeverWritten() throws Exception {
    for (String set : List.of("deployment.env.DB_PASS=hunter2", "deployment.env.DATABASE_URL=postgres://admin:pw@db:5432/x",
        "deployment.env.AUTH=Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abc",
        "deployment.image=user:pw@registry.example.com/weft:1", "checkpoint.dir=s3://AKIAABCDEFGHIJ234567:wJalrXUtnFEMI@bucket/p",
        "data.source=https://user:pw@example.com/tokens.npy")) {
      TrainingSpec spec = withSet(set);
      String field = set.substring(0, set.indexOf('='));
      assertThatThrownBy(() -> SpecCheck.validate(spec)).as(set).hasMessageStartingWith(field + ": ")
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2", ":pw@", "wJalrXUtnFEMI", "eyJzdWIi"));
      Path file = Files.createTempDirectory("weft-secrets-").resolve("spec.yaml");
      assertThatThrownBy(() -> SpecIO.write(spec, file)).as(set).isInstanceOf(SpecException.class);
      assertThat(file).doesNotExist();
    }
    assertThat(SpecCheck.validate(withSet("deployment.image=ghcr.io/org/weft:1.2@sha256:" + "ab".repeat(32))).deployment().image())
        .endsWith("ab");
  }

  @Provide
  Arbitrary<Leak> leaks() {
    Arbitrary<String> user = Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(10);
    Arbitrary<String> pw = Arbitraries.strings().withCharRange('a', 'z').numeric().withChars("!$%^*_-~").ofMinLength(10)
        .ofMaxLength(24).map(p -> "Q7" + p);
    Arbitrary<String> host = Arbitraries.of("db.internal", "registry.example.com", "10.0.0.5:5432", "bucket");
    Arbitrary<Leak> userinfo = Combinators.combine(Arbitraries.of("deployment.env.DATABASE_URL", "data.source", "checkpoint.dir",
            "deployment.image", "model.pretrained"), Arbitraries.of("postgres", "https", "s3", "redis", ""), user, pw, host)
        .as((f, scheme, u, p, h) -> new Leak(f, (scheme.isEmpty() ? "" : scheme + "://") + u + ":" + p + "@" + h + "/x", p));
    Arbitrary<String> b64 = Arbitraries.strings().alpha().numeric().withChars("_-").ofMinLength(10).ofMaxLength(40);
    Arbitrary<Leak> bearer = Combinators.combine(Arbitraries.of("deployment.env.AUTH", "deployment.env.HEADER", "deployment.image"),
        Arbitraries.of("Bearer ", "bearer ", "Basic "), Arbitraries.strings().alpha().numeric().ofMinLength(10).ofMaxLength(40))
        .as((f, kind, t) -> new Leak(f, kind + "Q7" + t, "Q7" + t));
    Arbitrary<Leak> jwt = Combinators.combine(Arbitraries.of("deployment.env.SESSION", "checkpoint.dir"), b64, b64)
        .as((f, a, b) -> new Leak(f, "eyJ" + a + ".eyJ" + b + ".sig", "eyJ" + a));
    Arbitrary<Leak> aws = Combinators.combine(Arbitraries.of("checkpoint.dir", "deployment.env.S3_ID", "data.source"),
            Arbitraries.of("AKIA", "ASIA"), Arbitraries.strings().withCharRange('A', 'Z').numeric().ofLength(16))
        .as((f, p, k) -> new Leak(f, "s3://bucket/" + p + k, p + k));
    Arbitrary<Leak> named = Combinators.combine(Arbitraries.of("DB_PASS", "DB_PASSWORD", "API_TOKEN", "MY_SECRET", "SIGNING_KEY",
            "ROOT_PWD", "GHTOKEN"), Arbitraries.strings().alpha().ofMinLength(6).ofMaxLength(12))
        .as((n, v) -> new Leak("deployment.env." + n, "Q7" + v, "Q7" + v));
    return Arbitraries.oneOf(userinfo, bearer, jwt, aws, named);
  }

  @Provide
  Arbitrary<String> ordinary() {
    return Arbitraries.of("s3://bucket/runs/prefix", "/data/ckpt", "runs/gpt-tiny", "ghcr.io/weft/weft:0.4.0",
        "ubuntu:22.04@sha256:" + "0f".repeat(32), "https://huggingface.co/meta-llama/Llama-3.2-1B", "git@github.com:org/repo.git",
        "arithmetic", "text:/data/corpus.txt", "hf:meta-llama/Llama-3.2-1B", "http://10.0.0.5:2379", "user@example.com",
        "eth0", "0.0.0.0", "bf16", "Basic", "bearer", "basic tokenizer settings", "token embeddings tied to the head");
  }
}
