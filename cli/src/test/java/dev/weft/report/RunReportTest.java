package dev.weft.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.Trainer;
import dev.weft.cli.WeftMain;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunReportTest {
  @TempDir Path dir;

  @Test
  void weftReportRendersEveryPlotOfARealRunAndAPngLossCurve() throws Exception {
    int steps = 12;
    Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .seqLen(16).globalBatch(4).steps(steps).runDir(dir).fit();

    int code = WeftMain.commandLine().execute("report", dir.toString());
    assertThat(code).isZero();

    String html = Files.readString(dir.resolve("report.html"));
    assertThat(html).startsWith("<!DOCTYPE html>").doesNotContain("<script").doesNotContain("http://cdn").doesNotContain("src=\"http");
    for (String id : List.of("loss", "lr", "throughput", "step-time", "memory", "membership")) {
      Matcher svg = Pattern.compile("<svg[^>]*id=\"plot-" + id + "\".*?</svg>", Pattern.DOTALL).matcher(html);
      assertThat(svg.find()).as("plot " + id).isTrue();
      Matcher pts = Pattern.compile("points=\"([^\"]*)\"").matcher(svg.group());
      assertThat(pts.find()).as("plot " + id + " has a series").isTrue();
      int n = pts.group(1).trim().split(" ").length;
      assertThat(n).as("points in " + id).isGreaterThanOrEqualTo(steps);
    }
    assertThat(html).contains("data-name=\"communication\"").contains("final_loss").contains("membership changes");

    BufferedImage png = ImageIO.read(dir.resolve("loss.png").toFile());
    assertThat(png.getWidth()).isEqualTo(800);
    assertThat(png.getHeight()).isEqualTo(450);
    int coloured = 0;
    for (int x = 0; x < png.getWidth(); x++) {
      for (int y = 0; y < png.getHeight(); y++) if ((png.getRGB(x, y) & 0xFFFFFF) == 0x0072B2) coloured++;
    }
    assertThat(coloured).as("pixels of the loss line").isGreaterThan(200);
  }

  @Test
  void metricsFromBeforeTheTimeSplitStillRender() throws Exception {
    Files.writeString(dir.resolve("metrics.jsonl"), """
        {"step":1,"loss":5.5,"lr":1e-4,"grad_norm":1,"tokens":8,"step_ms":10,"tokens_per_s":800,"model_flops_per_s":1}
        {"step":2,"loss":4.5,"lr":2e-4,"grad_norm":1,"tokens":8,"step_ms":12,"tokens_per_s":700,"model_flops_per_s":1}
        """);
    RunReport.Result r = RunReport.write(dir);
    assertThat(r.plots()).hasSize(6);
    assertThat(Files.readString(r.html())).contains("no summary.json").contains("no breakdown recorded");
  }

  @Test
  void textChartDrawsOneStarPerColumn() {
    String s = TextChart.plot(List.of(5.0, 4.0, 3.0, 2.5, 2.0, 1.9), 6, 5);
    assertThat(s.lines().limit(5).mapToLong(l -> l.chars().filter(c -> c == '*').count()).sum()).isEqualTo(6);
    assertThat(s).contains("5.0000").contains("1.9000");
  }
}
