package org.jdtrace.provider.fasttrap.internal;

import java.nio.file.Files;
import java.nio.file.Path;

/** execvp's lookup, done before spawning so that -c's error is dtrace's and not the shell's. */
final class Executables {

    private Executables() {}

    /** Null when {@code cmd} can be executed, else the strerror text execvp would give. */
    static String problem(String cmd) {
        if (cmd.isEmpty()) return "No such file or directory";
        if (cmd.contains("/")) return check(Path.of(cmd));
        String path = System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin");
        String worst = "No such file or directory";
        for (String dir : path.split(":", -1)) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, cmd);
            String e = check(p);
            if (e == null) return null;
            if (!e.startsWith("No such")) worst = e;
        }
        return worst;
    }

    private static String check(Path p) {
        if (!Files.exists(p)) return "No such file or directory";
        if (Files.isDirectory(p) || !Files.isExecutable(p)) return "Permission denied";
        return null;
    }
}
