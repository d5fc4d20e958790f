package dev.weft.cuda;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test that needs a CUDA device: tagged {@code gpu} (excluded by sdk-native's pom) and, when included anyway,
 * skipped with the reason the doctor gives.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Tag("gpu")
@ExtendWith(GpuTest.RequiresDevice.class)
public @interface GpuTest {
  final class RequiresDevice implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      CudaStatus s = CudaStatus.current();
      return s.devices().isEmpty() ? ConditionEvaluationResult.disabled("needs a CUDA device: " + s.missing())
          : ConditionEvaluationResult.enabled(s.devices().get(0).toString());
    }
  }
}
