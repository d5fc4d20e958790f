package dev.weft.s3;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.options.GetOptions;
import org.jclouds.blobstore.util.ForwardingBlobStore;

/**
 * A store that, while its gate is closed, serves the object named {@code held} only up to {@code holdAt} bytes (a
 * read from its start ends there, as a dropped connection does) and holds a read of what follows until the gate
 * opens: a download caught mid-object, for a test to kill the process that reads it.
 */
final class GatedBlobStore extends ForwardingBlobStore {
  private final String held;
  private final long holdAt;
  private volatile CountDownLatch gate = new CountDownLatch(0);

  GatedBlobStore(BlobStore delegate, String held, long holdAt) {
    super(delegate);
    this.held = held;
    this.holdAt = holdAt;
  }

  void close() { gate = new CountDownLatch(1); }

  void open() { gate.countDown(); }

  @Override
  public Blob getBlob(String container, String name, GetOptions options) {
    CountDownLatch waitFor = gate;
    if (!name.equals(held) || waitFor.getCount() == 0) return super.getBlob(container, name, options);
    List<String> ranges = options.getRanges();
    long start = ranges.isEmpty() ? 0 : Long.parseLong(ranges.get(0).split("-")[0]);
    if (start < holdAt) return super.getBlob(container, name, GetOptions.Builder.range(start, holdAt - 1));
    try {
      waitFor.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return super.getBlob(container, name, options);
  }
}
