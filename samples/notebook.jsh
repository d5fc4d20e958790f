// Weft in JShell: build a model, train it in this JVM with the DSL, look at the loss curve.
// Open it with:   samples/notebook        (or: jshell --class-path "$(cat samples/target/weft.classpath)" samples/notebook.jsh)
// Every snippet below can be edited and re-run; /list shows them, /edit N opens one.

import dev.weft.*;
import dev.weft.models.*;
import dev.weft.eval.Generation;
import dev.weft.report.TextChart;
import dev.weft.train.RunResult;

// 1. Describe the job with the DSL: a small GPT (2 layers, hidden 64) learning arithmetic on one rank.
// (JShell ends a statement at a complete line, so a chain that goes on ends its line with a dot.)
var trainer = Trainer.model("gpt").size("tiny").
    set("model.config.layers", 2).set("model.config.hidden", 64).set("model.config.heads", 2).
    seqLen(32).globalBatch(8).steps(40).lr(3e-3).warmup(4);
var spec = trainer.toSpec();
System.out.println(dev.weft.spec.SpecIO.toYaml(spec));

// 2. Build the model the same way every worker does (the framework picks the layers for the layout), and count its parameters.
var model = dev.weft.train.ModelBuilder.whole(spec);
System.out.printf("model: %,d parameters%n", model.parameters().numel());

// 3. Train in-process (ranks are threads; .dataParallel(2) would use two), printing every 10th step.
RunResult result = trainer.onStep((m, total) -> {
    if (m.step() % 10 == 0) System.out.printf("step %d/%d  loss %.4f  %,.0f tok/s%n", m.step(), total, m.loss(), m.tokensPerS());
}).fit();

// 4. The loss curve.
System.out.print(TextChart.plot(result.losses(), 60, 12));
System.out.printf("loss %.4f -> %.4f over %d steps%n", result.losses().get(0), result.losses().get(result.losses().size() - 1), result.losses().size());

// 5. fit() returns the trained model: continue "12+7=" greedily (byte tokens).
var trained = (CausalLm) result.model();
long[] prompt = "12+7=".chars().asLongStream().toArray();
long[] next = Generation.generate(trained, prompt, 6, Generation.Sampling.GREEDY);
System.out.println("12+7=" + new String(java.util.Arrays.stream(next).mapToInt(i -> (int) i).toArray(), 0, next.length).replace("\n", "⏎"));
