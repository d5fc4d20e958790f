package dev.weft.train;

import dev.weft.comm.Communicator;
import dev.weft.comm.ReduceOp;
import dev.weft.models.Parameters.Param;
import dev.weft.util.Tensors;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.pytorch.Tensor;

/**
 * Are the data-parallel replicas identical? Each rank hashes its parameters (SHA-256 of the raw
 * bytes, in order), the hashes are gathered across its dp group and compared, and the verdicts of
 * all groups are combined over the world.
 */
public final class ReplicaCheck {
  private ReplicaCheck() {}

  public static byte[] hash(List<Param> params) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] chunk = new byte[1 << 16];
      for (Param p : params) {
        Tensor c = Tensors.onHost(p.tensor().detach()).contiguous();
        long n = c.numel() * c.element_size();
        BytePointer bp = new BytePointer(c.data_ptr()).capacity(n);
        for (long off = 0; off < n; off += chunk.length) {
          int len = (int) Math.min(chunk.length, n - off);
          bp.position(off).get(chunk, 0, len);
          md.update(chunk, 0, len);
        }
      }
      return md.digest();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  public static boolean consistent(List<Param> params, Communicator dp, Communicator world) {
    return consistent(params, dp, world, dev.weft.parallel.data.ExpertGroups.none());
  }

  /** As above; under expert parallelism an expert is compared only within the edp group that holds it. */
  public static boolean consistent(List<Param> params, Communicator dp, Communicator world, dev.weft.parallel.data.ExpertGroups experts) {
    List<Param> dense = params.stream().filter(p -> !experts.names().contains(p.name())).toList();
    List<Param> mine = params.stream().filter(p -> experts.names().contains(p.name())).toList();
    boolean same = sameWithin(dense, dp) && (!experts.any() || sameWithin(mine, experts.edp()));
    Tensor verdict = Tensors.ofLongs(same ? 1 : 0);
    world.allReduce(verdict, ReduceOp.MIN);
    return Tensors.toLongs(verdict)[0] == 1;
  }

  private static boolean sameWithin(List<Param> params, Communicator dp) {
    ByteBuffer h = ByteBuffer.wrap(hash(params));
    long[] mine = {h.getLong(), h.getLong(), h.getLong(), h.getLong()};
    Tensor all = Tensors.empty(org.bytedeco.pytorch.global.torch.ScalarType.Long, 4L * dp.size());
    dp.allGather(all, Tensors.ofLongs(mine));
    long[] got = Tensors.toLongs(all);
    boolean same = true;
    for (int r = 0; r < dp.size(); r++) {
      for (int i = 0; i < 4; i++) same &= got[4 * r + i] == mine[i];
    }
    return same;
  }
}
