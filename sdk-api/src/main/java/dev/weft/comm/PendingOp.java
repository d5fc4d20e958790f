package dev.weft.comm;

/** An operation in flight. {@link #await()} blocks until it completes or the communicator's timeout passes. */
public interface PendingOp {
  void await();

  PendingOp DONE = () -> {};
}
