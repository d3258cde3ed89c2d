/*
 * -C: runs the C preprocessor over a script, as dtrace does (dtrace forks cpp(1) too).
 *
 * The script is fed on stdin, named /dev/stdin as dtrace names it (cpp's messages say
 * "/dev/stdin:17: error: ...", a line and no column: -fno-show-column), with its own directory first on the include path (so #include
 * "x.d" finds its neighbours, as cpp does for a named file). cpp's line markers are then folded
 * back: when a marker says the main file goes on at line N, blank lines are added until the
 * output is at line N, so that the compiler's line numbers are the script's own for everything
 * before the first #include and stay close after it. -D, -U, -I and -H are passed through, and
 * -xcppargs word by word; __SUNW_D and __SUNW_D_VERSION are defined as dtrace defines them; the
 * stdc mode picks the dialect as dt_preproc does (s: -traditional-cpp, where __STDC__ is not
 * defined; a, c, t: -std=c99).
 */
package org.jdtrace.libdtrace.cmd;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

final class Preprocessor {

    private static final Pattern MARKER = Pattern.compile("^# (\\d+) \"((?:[^\"\\\\]|\\\\.)*)\"(?: \\d+)*$");
    private static final String MAIN = "/dev/stdin";

    /** Thrown when cpp fails; its own messages are already on stderr. */
    static final class Failure extends Exception {
        Failure(String message) {
            super(message, null, false, false);
        }
    }

    private Preprocessor() {}

    /**
     * @param stdc    the stdc option (a, c, s, t), or null for dtrace's default (a)
     * @param cppargs the cppargs option: more arguments for cpp, split at white space; or null
     * @param version the D version in force (option version), which __SUNW_D_VERSION gives
     */
    static String run(String source, Path script, CommandLine cl, String stdc, String cppargs, int version,
            PrintStream err)
            throws Failure {
        Path cpp = findCpp();
        if (cpp == null) {
            throw new Failure("cpp(1) is not installed; -C needs it");
        }
        List<String> cmd = new ArrayList<>(List.of(cpp.toString(), "-D__SUNW_D=1",
                String.format("-D__SUNW_D_VERSION=0x%08x", version), "-D__SUNW_D_64",
                "s".equals(stdc) ? "-traditional-cpp" : "-std=c99", "-fno-show-column"));
        if (cppargs != null) {
            for (String a : cppargs.trim().split("\\s+")) {
                if (!a.isEmpty()) cmd.add(a);
            }
        }
        Path dir = script == null ? null : script.toAbsolutePath().getParent();
        if (dir != null) {
            cmd.add("-I" + dir);
        }
        for (CommandLine.Option o : cl.options) {
            switch (o.letter()) {
                case 'D' -> cmd.add("-D" + o.arg());
                case 'U' -> cmd.add("-U" + o.arg());
                case 'I' -> cmd.add("-I" + o.arg());
                case 'H' -> cmd.add("-H");
                case 'x' -> {
                    if (o.arg().startsWith("define=")) {
                        cmd.add("-D" + o.arg().substring(7));
                    } else if (o.arg().startsWith("undef=")) {
                        cmd.add("-U" + o.arg().substring(6));
                    } else if (o.arg().startsWith("incdir=")) {
                        cmd.add("-I" + o.arg().substring(7));
                    }
                }
                default -> { }
            }
        }
        cmd.add("/dev/stdin");
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.redirectError(err == System.err ? ProcessBuilder.Redirect.INHERIT : ProcessBuilder.Redirect.PIPE);
        String output;
        try {
            Process p = pb.start();
            Thread errPump = null;
            if (err != System.err) {
                errPump = Thread.ofPlatform().daemon().start(() -> {
                    try {
                        p.getErrorStream().transferTo(err);
                    } catch (IOException ignored) {
                        // cpp went away
                    }
                });
            }
            Thread feeder = Thread.ofPlatform().daemon().start(() -> {
                try (OutputStream os = p.getOutputStream()) {
                    os.write(source.getBytes(StandardCharsets.UTF_8));
                } catch (IOException ignored) {
                    // cpp stopped reading: its exit status tells
                }
            });
            output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int rc = p.waitFor();
            feeder.join();
            if (errPump != null) {
                errPump.join();
            }
            if (rc != 0) {
                throw new Failure("Preprocessor failed to process input program");
            }
        } catch (IOException e) {
            throw new Failure("failed to run " + cpp + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure("Preprocessor failed to process input program");
        }
        return foldLineMarkers(output);
    }

    static String foldLineMarkers(String cppOutput) {
        StringBuilder out = new StringBuilder(cppOutput.length());
        int line = 1;
        String[] lines = cppOutput.split("\n", -1);
        int n = cppOutput.endsWith("\n") ? lines.length - 1 : lines.length;
        for (int i = 0; i < n; i++) {
            String l = lines[i];
            Matcher m = MARKER.matcher(l);
            if (m.matches()) {
                if (m.group(2).equals(MAIN)) {
                    int target = Integer.parseInt(m.group(1));
                    while (line < target) {
                        out.append('\n');
                        line++;
                    }
                }
                continue;
            }
            out.append(l).append('\n');
            line++;
        }
        return out.toString();
    }

    private static Path findCpp() {
        for (String c : List.of("/usr/bin/cpp", "/bin/cpp", "/usr/local/bin/cpp")) {
            Path p = Path.of(c);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }
}
