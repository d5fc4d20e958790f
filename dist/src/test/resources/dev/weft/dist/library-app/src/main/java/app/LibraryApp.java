package app;

import dev.weft.Trainer;
import dev.weft.data.ShardIndex;
import dev.weft.data.TokenArray;
import dev.weft.data.prepare.Prepare;
import dev.weft.eval.Evaluation;
import dev.weft.models.hf.HfExport;
import dev.weft.tokenizer.Tokenizer;
import dev.weft.train.RunResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** An application that depends on dev.weft:weft-sdk-api alone: prepares JSONL, trains, evaluates and exports. */
public class LibraryApp {
  public static void main(String[] args) throws Exception {
    Path work = Path.of(args[0]);
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 64; i++) lines.add("{\"text\": \"document " + i + ": the quick brown fox jumps over the lazy dog\"}");
    Path jsonl = Files.write(work.resolve("docs.jsonl"), lines);
    Path shards = work.resolve("shards");
    ShardIndex ix = Prepare.run(new Prepare.Request(Tokenizer.open("bytes"), List.of(jsonl), shards, "auto", "text", 1 << 20, 0),
        (done, total, tokens) -> {});
    System.out.println("prepared " + ix.tokens() + " tokens");

    RunResult r = Trainer.model("gpt").set("model.config.layers", 1).set("model.config.hidden", 32).set("model.config.heads", 2)
        .set("model.config.vocab", 256).data(shards.toString()).seqLen(16).globalBatch(4).warmup(0).seed(3).steps(3)
        .runDir(work.resolve("run").toString()).fit();
    System.out.println("trained " + r.losses().size() + " steps, loss " + r.losses().get(r.losses().size() - 1));

    TokenArray tokens = ShardIndex.read(shards).open(shards);
    Evaluation.Result e = Evaluation.run(r.model(), tokens, 16);
    System.out.println("evaluated " + e.tokens() + " tokens, loss " + e.loss());

    HfExport.Result x = HfExport.write(r.weights(), r.spec(), work.resolve("hf"));
    System.out.println("exported " + x.tensors() + " tensors to " + x.dir());
    System.out.println("library app: ok");
  }
}
