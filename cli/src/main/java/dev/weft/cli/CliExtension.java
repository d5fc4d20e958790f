package dev.weft.cli;

/**
 * A subcommand contributed by another module (for example {@code weft k8s} from sdk-k8s), found
 * through {@link java.util.ServiceLoader}. {@link #command()} returns a picocli-annotated object.
 */
public interface CliExtension {
  /** The subcommand's name, e.g. {@code k8s}. */
  String name();

  /** A fresh picocli command object (annotated with {@code @Command}). */
  Object command();
}
