package org.jdtrace.libdtrace;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Translators through a real session: user translators expanded member by member and as a whole,
 * the system translators behind curpsinfo and curlwpsinfo checked against ps(1) for this JVM (the
 * process a JVM-side probe fires in), and each refusal with DTrace's tag and line.
 */
class TranslatorsTest {

    private static final String DECLS = """
            struct in { int i; char c; long l; };
            struct out { int twice; char c; short unset; long sum; char name[8]; };
            translator struct out < struct in *p > {
                twice = p->i * 2;
                c = p->c;
                sum = p->i + p->l;
                name = "xl";
            };
            translator struct out < int n > {
                twice = n + n;
            };
            """;

    @Test
    void membersWholeTranslationsAndIntegerInputs() throws Exception {
        DRun r = DRun.script(DECLS + """
                #pragma D option quiet
                struct in v;
                struct out o;
                BEGIN {
                    p = (struct in *) alloca(sizeof (struct in));
                    p->i = 21; p->c = 'k'; p->l = 100;
                    printf("%d %c %d %s\\n", xlate <struct out *> (p)->twice, xlate <struct out *> (p)->c,
                        xlate <struct out *> (p)->sum, xlate <struct out *> (p)->name);
                    o = xlate <struct out> (p);
                    printf("%d %c %d %d %s\\n", o.twice, o.c, o.unset, o.sum, o.name);
                    printf("%d\\n", xlate <struct out> (7).twice);
                    exit(0);
                }
                """).go();
        assertEquals("42 k 121 xl\n42 k 0 121 xl\n14\n\n", r.end(), r.err());
    }

    @Test
    void curpsinfoAndCurlwpsinfoDescribeTheFiringProcess() throws Exception {
        long pid = ProcessHandle.current().pid();
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN {
                    printf("%d %d %d %d %d %d\\n", curpsinfo->pr_pid, curpsinfo->pr_ppid, curpsinfo->pr_uid,
                        curpsinfo->pr_gid, curpsinfo->pr_pgid, curpsinfo->pr_sid);
                    printf("%d %d %s\\n", curpsinfo->pr_dmodel, curlwpsinfo->pr_lwpid == tid, curlwpsinfo->pr_name);
                    printf("%s\\n", curpsinfo->pr_psargs);
                    printf("%c%c\\n", curlwpsinfo->pr_name[0], curpsinfo->pr_psargs[1]);
                    exit(0);
                }
                """).go();
        String[] out = r.end().split("\n");
        Process ps = new ProcessBuilder("ps", "-o", "pid=,ppid=,uid=,gid=,pgid=,sid=", "-p", Long.toString(pid)).start();
        String expected = new String(ps.getInputStream().readAllBytes()).trim().replaceAll("\\s+", " ");
        assertTrue(ps.waitFor(10, TimeUnit.SECONDS));
        assertEquals(expected, out[0]);
        // LP64, the firing thread, and its name as the kernel has it
        String comm = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/thread-self/comm"))).strip();
        assertEquals("2 1 " + comm, out[1]);
        Process args = new ProcessBuilder("ps", "-o", "args=", "-p", Long.toString(pid)).start();
        String cmdline = new String(args.getInputStream().readAllBytes()).strip();
        assertTrue(args.waitFor(10, TimeUnit.SECONDS));
        assertEquals(cmdline.substring(0, Math.min(79, cmdline.length())), out[2]);
        // a character of a char array member: its string indexed
        assertEquals("" + comm.charAt(0) + cmdline.charAt(1), out[3]);
    }

    /** As {@link CTypesTest#refuse}. */
    private static void refuse(String program, String tag, int line, String message) {
        CTypesTest.refuse(program, tag, line, message);
    }

    @Test
    void refusalsCarryDtracesTagsAndLines() {
        refuse("struct in { int i; };\ntranslator int < struct in *p > { };", "D_XLATE_SOU", 2,
                "translator output type must be a struct or union");
        refuse("struct in { int i; };\nstruct out;\ntranslator struct out < struct in *p > { };", "D_XLATE_SOU", 3,
                "incomplete struct/union/enum struct out");
        refuse(DECLS + "translator struct out < int n > { twice = n; };", "D_XLATE_REDECL", 12,
                "translator from int to struct out has already been declared");
        refuse("struct in { int i; };\nstruct out { int o; };\ntranslator struct out < struct in *p > {\n o = p->i;\n"
                + " x = p->i; };", "D_XLATE_MEMB", 5, "translator member x is not a member of struct out");
        // (char * = string is accepted: both are dt_node_is_strcompat, so dt_node_is_argcompat holds)
        refuse("struct in { int i; };\nstruct out { int o; };\ntranslator struct out < struct in *p > {\n o = \"s\"; };",
                "D_XLATE_INCOMPAT", 4, "translator member o definition uses incompatible types: \"int\" = \"string\"");
        refuse("struct in { char c; };\nstruct out { char *o; };\ntranslator struct out < struct in *p > {\n o = p->c;\n};",
                "D_XLATE_INCOMPAT", 5, "translator member o definition uses incompatible types: \"char *\" = \"char\"");
        refuse(DECLS + "struct in v;\nBEGIN { trace(xlate <struct out> (v).twice); }", "D_XLATE_NONE", 13,
                "cannot translate from \"struct in\" to \"struct out\"");
        refuse(DECLS + "BEGIN { trace(xlate <struct out> (1).sum); }", "D_XLATE_NOCONV", 12,
                "translator does not define conversion for member: sum");
    }

    @Test
    void systemTranslatorsRefuseTheMembersProcfsDoesNotConvert() {
        // declared in psinfo_t/lwpsinfo_t, but procfs.d's translators define no conversion for them
        for (String m : new String[] {"pr_size", "pr_rssize"}) {
            refuse("BEGIN {\n trace(curpsinfo->" + m + ");\n}", "D_XLATE_NOCONV", 2,
                    "translator does not define conversion for member: " + m);
        }
        for (String m : new String[] {"pr_nice", "pr_oldpri", "pr_cpu"}) {
            refuse("BEGIN {\n\n trace(curlwpsinfo->" + m + ");\n}", "D_XLATE_NOCONV", 3,
                    "translator does not define conversion for member: " + m);
        }
    }

    @Test
    void procfsInlinesAndTheMembersItDoesConvert() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN {
                    printf("%d %d %d %d\\n", PR_MODEL_ILP32, PR_MODEL_LP64, curpsinfo->pr_dmodel == PR_MODEL_LP64,
                        curpsinfo->pr_nzomb);
                    printf("%d %d\\n", sizeof (PR_MODEL_LP64), SONPROC);
                    exit(0);
                }
                """).go();
        assertEquals("1 2 1 0\n1 6\n\n", r.end(), r.err());
    }

    @Test
    void prArgvAndPrEnvpAreTheProcessVectors() throws Exception {
        DRun r = DRun.script("""
                #pragma D option quiet
                BEGIN /curpsinfo->pr_dmodel == PR_MODEL_LP64/ {
                    printf("%x %x %d\\n", curpsinfo->pr_argv, curpsinfo->pr_envp, curpsinfo->pr_argc);
                    exit(0);
                }
                """).go();
        // the kernel's start of this JVM's initial stack holds argc; argv[] follows, then a NULL, then envp[]
        String stat = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/self/stat")));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long start = Long.parseLong(f[28 - 3]);
        int argc = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/self/cmdline"))).split("\0").length;
        assertEquals(Long.toHexString(start + 8) + " " + Long.toHexString(start + 8 + 8L * (argc + 1)) + " " + argc + "\n\n",
                r.end(), r.err());
        // and argv[0] there, read through /proc/self/mem, is the kernel's argv[0]
        try (var mem = new java.io.RandomAccessFile("/proc/self/mem", "r")) {
            mem.seek(start + 8);
            long p = Long.reverseBytes(mem.readLong());
            mem.seek(p);
            StringBuilder arg0 = new StringBuilder();
            for (int c; (c = mem.read()) > 0; ) arg0.append((char) c);
            String cmdline = new String(java.nio.file.Files.readAllBytes(java.nio.file.Path.of("/proc/self/cmdline")));
            assertEquals(cmdline.substring(0, cmdline.indexOf('\0')), arg0.toString());
        }
    }
}
