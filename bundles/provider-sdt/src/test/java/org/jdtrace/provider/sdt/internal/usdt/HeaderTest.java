package org.jdtrace.provider.sdt.internal.usdt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * dtrace -h and -G on a D provider definition, a C program built with both (gcc, no systemtap
 * header), traced with -c: arguments typed as declared, the is-enabled guard off untraced and
 * on while traced; readelf sees the notes the header wrote. Bad input: a definition with an
 * error, -h without -s.
 */
class HeaderTest {

    private final Platform platform = new Platform();
    private Path dir;

    @AfterEach
    void tearDown() throws Exception {
        platform.close();
        if (dir != null) {
            try (var w = Files.walk(dir)) {
                w.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static int sh(Path dir, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).inheritIO().start();
        return p.waitFor();
    }

    @Test
    void headerAndObjectBuildATraceableProgram() throws Exception {
        dir = Files.createTempDirectory("dtrace-h");
        Files.writeString(dir.resolve("myapp.d"), """
                /* a provider as a DTrace build declares it */
                #pragma D attributes Evolving/Evolving/Common provider myapp provider
                provider myapp {
                    probe query__start(char *, int);
                    probe query__done(unsigned long, short);  // two
                };
                """);
        Files.writeString(dir.resolve("app.c"), """
                #include <stdio.h>
                #include <stdlib.h>
                #include "myapp.h"
                static long costly;
                static int expensive(int i) { costly++; return i * 3; }
                int main(int argc, char **argv) {
                    int n = atoi(argv[1]);
                    for (int i = 0; i < n; i++) {
                        MYAPP_QUERY_START("select", -i);
                        if (MYAPP_QUERY_DONE_ENABLED()) MYAPP_QUERY_DONE(expensive(i), (short) -7);
                    }
                    printf("costly %ld\\n", costly);
                    return 0;
                }
                """);
        Platform.Run h = platform.run("-h", "-s", dir.resolve("myapp.d").toString(), "-o", dir.resolve("myapp.h").toString());
        assertEquals(0, h.await(), h.toString());
        assertTrue(!Files.readString(dir.resolve("myapp.h")).contains("sys/sdt.h"), "self-contained");
        Platform.Run g = platform.run("-G", "-s", dir.resolve("myapp.d").toString(), "-o", dir.resolve("myapp.o").toString());
        assertEquals(0, g.await(), g.toString());
        assertEquals(0, sh(dir, "cc", "-O2", "-c", "-o", "app.o", "app.c"));
        assertEquals(0, sh(dir, "cc", "-o", "app", "app.o", "myapp.o"));
        Process untraced = new ProcessBuilder(dir.resolve("app").toString(), "5").start();
        assertEquals("costly 0\n", new String(untraced.getInputStream().readAllBytes()), "the guard is off untraced");

        Platform.Run r = platform.run("-q", "-n",
                "myapp$target:::query-start { printf(\"start %s %d\\n\", copyinstr(arg0), (int) arg1); }"
                        + " myapp$target:::query-done { printf(\"done %d %d\\n\", arg0, (short) arg1); }",
                "-c", dir.resolve("app") + " 3");
        assertEquals(0, r.await(), r.toString());
        assertEquals(List.of("start select 0", "done 0 -7", "start select -1", "done 3 -7", "start select -2", "done 6 -7"),
                r.out().lines().filter(l -> l.startsWith("start") || l.startsWith("done")).toList(), r.toString());
        assertTrue(r.out().contains("costly 3\n"), r.toString());

        // args[] typed as the definition declares them (the header's .note.jdtrace): char * read
        // with copyinstr, printed as a pointer; int sign-extended from 32 bits
        Platform.Run a = platform.run("-q", "-n",
                "myapp$target:::query-start { printf(\"typed %s %d %d %d %d %s\\n\", copyinstr(args[0]), args[1], sizeof (args[1]),"
                        + " sizeof (args[0]), args[1] < 0, args[0] == arg0 && args[0] != 0 ? \"ptr\" : \"?\"); }"
                        + " myapp$target:::query-done { printf(\"typed %d %d\\n\", args[1], sizeof (args[1])); }",
                "-c", dir.resolve("app") + " 2");
        assertEquals(0, a.await(), a.toString());
        assertEquals(List.of("typed select 0 4 8 0 ptr", "typed -7 2", "typed select -1 4 8 1 ptr", "typed -7 2"),
                a.out().lines().filter(x -> x.startsWith("typed")).toList(), a.toString());
        Platform.Run ptr = platform.run("-q", "-n", "myapp$target:::query-start { printf(\"typed %p\\n\", args[0]); }",
                "-c", dir.resolve("app") + " 1");
        assertEquals(0, ptr.await(), ptr.toString());
        assertTrue(Pattern.compile("^typed 0x[0-9a-f]+$", Pattern.MULTILINE).matcher(ptr.out()).find(), ptr.toString());

        Platform.Run l = platform.run("-lv", "-n", "myapp$target:::query-*", "-c", dir.resolve("app") + " 0");
        assertEquals(0, l.await(), l.toString());
        assertTrue(l.out().contains("args[0]: char *") && l.out().contains("args[1]: int\n"), l.toString());
        assertTrue(l.out().contains("args[0]: unsigned long") && l.out().contains("args[1]: short"), l.toString());
    }

    @Test
    void badDefinitionsAndUsage() throws Exception {
        dir = Files.createTempDirectory("dtrace-h");
        Path bad = dir.resolve("bad.d");
        Files.writeString(bad, "provider p {\n  probe a(int);\n  probe b(int x y;\n};\n");
        Platform.Run r = platform.run("-xerrtags", "-h", "-s", bad.toString(), "-o", dir.resolve("bad.h").toString());
        assertEquals(1, r.await(), r.toString());
        assertEquals("dtrace: failed to compile script " + bad + ": [D_SYNTAX] line 3: syntax error near \"y\"\n", r.err());
        Files.writeString(bad, "provider p {\n  probe a(struct foo);\n};\n");
        r = platform.run("-h", "-s", bad.toString(), "-o", dir.resolve("bad.h").toString());
        assertEquals(1, r.await(), r.toString());
        assertTrue(r.err().startsWith("dtrace: failed to compile script " + bad + ": line 2: unknown type"), r.err());
        r = platform.run("-h", "-n", "BEGIN");
        assertEquals(2, r.await(), r.toString());
        assertTrue(r.err().startsWith("dtrace: -h requires one or more scripts (-s)\n"), r.err());
    }
}
