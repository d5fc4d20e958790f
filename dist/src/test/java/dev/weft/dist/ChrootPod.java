package dev.weft.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One pod run the way a container runtime runs it, with no runtime: a shell script (started in the pod's
 * network namespace) that makes its own mount and UTS namespaces, bind-mounts the image root read-only,
 * mounts the pod's volumes over it, sets the pod's hostname and {@code chroot}s into it as the image's
 * user with exactly the given environment (nothing inherited) and the container's command line.
 *
 * @param hostname the pod's hostname
 * @param image the unpacked image
 * @param volumes mount path in the container to host directory (a directory mounted read-only when its
 *     path is in {@code readOnly})
 * @param readOnly the container paths mounted read-only
 * @param env the container's whole environment (image config, manifest, controller)
 * @param argv the container's command and args
 */
record ChrootPod(String hostname, ImageRoot image, Map<String, Path> volumes, List<String> readOnly,
                 Map<String, String> env, List<String> argv) {

  /** The image's environment overlaid with the pod's, as the kubelet merges them, plus HOSTNAME. */
  static Map<String, String> containerEnv(ImageRoot image, Map<String, String> podEnv, String hostname) {
    Map<String, String> env = new LinkedHashMap<>(image.env());
    env.put("HOSTNAME", hostname);
    env.putAll(podEnv);
    return env;
  }

  /** Writes the pod's script to {@code dir}/run.sh (mount points are made in the image root first) and returns the argv that runs it. */
  List<String> script(Path dir) throws IOException {
    Path root = image.root();
    Path mnt = Files.createDirectories(dir.resolve("rootfs"));
    StringBuilder s = new StringBuilder("#!/bin/sh\nset -eu\n");
    s.append("hostname ").append(q(hostname)).append('\n');
    s.append("R=").append(q(mnt.toString())).append('\n');
    s.append("mount --bind ").append(q(root.toString())).append(" \"$R\"\n");
    s.append("mount -o remount,bind,ro \"$R\"\n");
    s.append("if touch \"$R/.weft-rw-probe\" 2>/dev/null; then echo 'the image root is writable' >&2; exit 97; fi\n");
    s.append("mount --rbind /proc \"$R/proc\"\nmount --rbind /dev \"$R/dev\"\nmount --rbind /sys \"$R/sys\"\n");
    s.append("mount --bind /etc/hosts \"$R/etc/hosts\"\n"); // the namespace's hosts file, as the kubelet's
    for (var v : volumes.entrySet()) {
      Files.createDirectories(root.resolve(v.getKey().substring(1))); // a mount point, as a runtime makes it
      String at = "\"$R\"" + q(v.getKey());
      s.append("mount --bind ").append(q(v.getValue().toString())).append(' ').append(at).append('\n');
      if (readOnly.contains(v.getKey())) s.append("mount -o remount,bind,ro ").append(at).append('\n');
    }
    String[] ug = image.user().isEmpty() ? new String[] {"0", "0"} : image.user().split(":");
    s.append("cd \"$R\"\nexec chroot --userspec=").append(ug[0]).append(':').append(ug.length > 1 ? ug[1] : ug[0])
        .append(" --groups= \"$R\" /usr/bin/env -i");
    for (var e : env.entrySet()) s.append(" \\\n  ").append(q(e.getKey() + "=" + e.getValue()));
    s.append(" \\\n  /bin/sh -c 'cd \"$0\" && exec \"$@\"' ").append(q(image.workingDir().isEmpty() ? "/" : image.workingDir()));
    for (String a : argv) s.append(' ').append(q(a));
    s.append('\n');
    Path f = dir.resolve("run.sh");
    Files.writeString(f, s.toString());
    List<String> cmd = new ArrayList<>(List.of("unshare", "--mount", "--uts", "--propagation", "private", "/bin/sh", f.toString()));
    return cmd;
  }

  private static String q(String s) { return "'" + s.replace("'", "'\\''") + "'"; }
}
