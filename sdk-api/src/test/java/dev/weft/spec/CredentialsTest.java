package dev.weft.spec;

import dev.weft.plan.SpecCheck;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Base64;
import java.util.List;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class CredentialsTest {
  @Test
  void namesThatSaySecretAreCredentials() {
    for (String n : List.of("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "GHTOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD",
        "WANDB_API_KEY", "OPENAI_APIKEY", "GOOGLE_APPLICATION_CREDENTIALS", "key", "Ssh_Key_Path")) {
      assertThat(Credentials.why(n, "x")).as(n).contains("its name says it is a credential");
    }
  }

  @Test
  void valuesShapedLikeKnownTokensAreCredentials() {
    assertThat(Credentials.why("HUB", "hf_" + "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsT")).contains("its value looks like a Hugging Face token");
    assertThat(Credentials.why("ID", "AKIA" + "ABCDEFGHIJ234567")).contains("its value looks like an AWS access key id");
    assertThat(Credentials.why("GH", "ghp_" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ")).contains("its value looks like a GitHub token");
    assertThat(Credentials.why("PEM", "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----"))
        .contains("its value looks like a private key");
    assertThat(Credentials.why("OPAQUE", "q8Zr2xL0vNw5Tg7Hk1Ys4Ue9Bc3Mf6Jd")).contains("its value is a long random-looking string");
  }

  @Test
  void ordinarySettingsAreNot() {
    assertThat(Credentials.why("TOKENIZERS_PARALLELISM", "false")).isEmpty();
    assertThat(Credentials.why("WEFT_LOG", "info")).isEmpty();
    assertThat(Credentials.why("MONKEY", "/data/shards/tokenized-corpus/part-000123.npy")).isEmpty();
    assertThat(Credentials.why("REVISION", "3f786850e387550fdab836ed7e6dc881de23001b3f786850e387550fdab836ed")).as("hex is 4 bits").isEmpty();
    assertThat(Credentials.why("MODEL", "meta-llama/Llama-3.2-1B-Instruct")).isEmpty();
  }

  @Test
  void theSpecRefusesACredentialInDeploymentEnvWithoutRepeatingIt() {
    String token = "hf_" + "abcdefghijklmnopqrstuvwxyz0123";
    assertThatThrownBy(() -> SpecCheck.validate(SpecIO.parse("name: a\ndeployment: {env: {HF_TOKEN: " + token + "}}\n")))
        .isInstanceOf(SpecException.class)
        .hasMessageStartingWith("deployment.env.HF_TOKEN: its name says it is a credential")
        .hasMessageContaining("set deployment.secretEnv.HF_TOKEN=SECRET-NAME/KEY instead")
        .message().doesNotContain(token);
    assertThat(SpecCheck.validate(SpecIO.parse("name: a\ndeployment: {secretEnv: {HF_TOKEN: hf/token}}\n"))
        .deployment().secretEnv()).containsEntry("HF_TOKEN", "hf/token");
  }

  /** Random bytes, written as base64 the way keys usually are, look random (given a digit, which keys nearly always hold). */
  @Property(tries = 300)
  void randomKeysAreCaught(@ForAll long seed, @ForAll("keyLengths") int bytes) {
    byte[] b = new byte[bytes];
    new Random(seed).nextBytes(b);
    String key = Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    Assume.that(key.chars().anyMatch(Character::isDigit));
    assertThat(Credentials.why("SETTING", key)).as(key).isPresent();
  }

  /** Names made of ordinary words, with plain values, are left alone. */
  @Property(tries = 300)
  void ordinaryNamesAreNotCaught(@ForAll("ordinaryNames") String name, @ForAll("plainValues") String value) {
    assertThat(Credentials.why(name, value)).as(name + "=" + value).isEmpty();
  }

  @Provide Arbitrary<Integer> keyLengths() { return Arbitraries.integers().between(30, 64); }

  @Provide
  Arbitrary<String> ordinaryNames() {
    return Arbitraries.of("OMP", "NUM", "THREADS", "TOKENIZERS", "PARALLELISM", "WEFT", "LOG", "NCCL", "DEBUG", "MONKEY",
        "KEYBOARD", "HF", "HOME", "CACHE", "DIR", "PATH", "LEVEL").list().ofMinSize(1).ofMaxSize(4).map(w -> String.join("_", w));
  }

  @Provide
  Arbitrary<String> plainValues() {
    return Arbitraries.of("info", "1", "false", "/tmp/cache", "eth0", "WARN", "meta-llama/Llama-3.2-1B", "0.0.0.0")
        .list().ofMinSize(1).ofMaxSize(3).map(w -> String.join(",", w));
  }
}
