package dev.weft.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A credential recognised by its shape or its name is refused by {@code weft k8s render} in one line naming the
 * field, and appears in no manifest (ConfigMap, Job) and no message (issue 31 item 9).
 */
class CredentialShapesRenderTest {
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "deployment.env.DB_PASS=hunter2Q7x | hunter2Q7x",
      "deployment.env.DATABASE_URL=postgres://admin:pwQ7xyz@db:5432/app | pwQ7xyz",
      "deployment.env.AUTH=Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJRN3h5eiJ9.c2ln | eyJzdWIiOiJRN3h5eiJ9",
      "deployment.image=user:pwQ7xyz@registry.example.com/weft:1 | pwQ7xyz",
      "checkpoint.dir=s3://AKIAQ7ABCDEFGHIJ2345:wJalrQ7xyz@bucket/runs | wJalrQ7xyz"})
  void aCredentialIsRefusedWithoutRepeatingIt(String set, String secret) {
    Cli r = Cli.run("render", TestSpecs.path("gpt-tiny.yaml").toString(), "--target", "job", "--set", set);
    String field = set.substring(0, set.indexOf('='));
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    assertThat(r.err()).contains(field + ": ").contains("deployment.secretEnv.").doesNotContain(secret);
    assertThat(r.out()).doesNotContain(secret);
  }
}
