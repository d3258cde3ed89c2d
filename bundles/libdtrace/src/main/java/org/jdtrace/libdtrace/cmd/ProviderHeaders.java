/*
 * dtrace -h and -G for USDT providers declared in D (dt_program_header / dt_link), SystemTap
 * style: the probes are SDT notes (.note.stapsdt) written by the header's macros themselves.
 *
 *   provider myapp { probe query__start(char *, int); };   (#pragma D lines accepted; a
 *   translated argument list "probe p(int i, int j) : (int j, int i);" is read and not kept)
 *
 * -h writes a C header (-o file, else <script>.h) that needs no systemtap header: for each probe
 * MYAPP_QUERY_START(a, b) emits a nop at the site and a note naming provider, probe (as
 * declared, query__start: DTrace shows query-start), the semaphore and each argument's operand
 * as "[-]size@operand", size and signedness from the declared type (each argument is cast to
 * it), and MYAPP_QUERY_START_ENABLED() reads the probe's is-enabled semaphore (a weak, hidden,
 * volatile unsigned short in .probes that the USDT provider increments while the probe is
 * enabled), so a guard around an expensive argument costs one load and a branch untraced.
 *
 * -G (-o file, else <script>.o) writes an object that defines every semaphore, compiled with the C
 * compiler ($CC, else cc): a build written for DTrace (objects compiled with the -h header and
 * linked with the -G object) works unchanged; the object files named after the options are left
 * as they are (their notes are already in them).
 *
 * Declared types: the notes carry sizes only, so each probe macro also writes a note of its own
 * section .note.jdtrace (owner "jdtrace"; provider, probe, and each argument's type as declared,
 * `string` as `char *`) beside its stapsdt note; the USDT provider reads it to type args[] as
 * declared (dtrace -lv shows those types). Nothing else reads that section.
 *
 * A definition with an error: "failed to compile script x.d: line N: ..." (D_SYNTAX, or
 * D_DECL_TYPE for a type this generator does not know; shown with -xerrtags), exit 1. -h or -G
 * without -s: a usage error (exit 2).
 */
package org.jdtrace.libdtrace.cmd;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

final class ProviderHeaders {

    /** A declared probe: provider, name as written, argument types as written. */
    record ProbeDecl(String provider, String name, List<String> types) {}

    /** A definition that does not compile: the message, its line, its D_* tag. */
    static final class DefinitionError extends Exception {
        final int line;
        final String tag;

        DefinitionError(String message, int line, String tag) {
            super(message, null, false, false);
            this.line = line;
            this.tag = tag;
        }
    }

    /** D integer types by name: size in bytes, negative when signed; pointers are 8, unsigned. */
    private static final Map<String, Integer> TYPES = Map.ofEntries(
            Map.entry("char", -1), Map.entry("signed char", -1), Map.entry("int8_t", -1),
            Map.entry("unsigned char", 1), Map.entry("uint8_t", 1), Map.entry("uchar_t", 1),
            Map.entry("short", -2), Map.entry("int16_t", -2), Map.entry("unsigned short", 2), Map.entry("uint16_t", 2),
            Map.entry("ushort_t", 2), Map.entry("int", -4), Map.entry("signed", -4), Map.entry("signed int", -4),
            Map.entry("int32_t", -4), Map.entry("unsigned", 4), Map.entry("unsigned int", 4), Map.entry("uint32_t", 4),
            Map.entry("uint_t", 4), Map.entry("long", -8), Map.entry("long long", -8), Map.entry("int64_t", -8),
            Map.entry("ssize_t", -8), Map.entry("intptr_t", -8), Map.entry("off_t", -8), Map.entry("pid_t", -4),
            Map.entry("unsigned long", 8), Map.entry("unsigned long long", 8), Map.entry("uint64_t", 8),
            Map.entry("size_t", 8), Map.entry("uintptr_t", 8), Map.entry("ulong_t", 8), Map.entry("bool", 1),
            Map.entry("_Bool", 1));

    private static final Pattern TOKEN = Pattern.compile("\\s*(?:([A-Za-z_][A-Za-z0-9_]*)|(\\*)|([{}();,:]))");

    private ProviderHeaders() {}

    /** The probes a provider definition declares. */
    static List<ProbeDecl> parse(String source) throws DefinitionError {
        List<String> toks = new ArrayList<>();
        List<Integer> lines = new ArrayList<>();
        String[] srcLines = stripComments(source).split("\n", -1);
        for (int ln = 0; ln < srcLines.length; ln++) {
            String l = srcLines[ln];
            if (l.strip().startsWith("#")) continue; // #pragma D attributes ..., cpp lines
            Matcher m = TOKEN.matcher(l);
            int pos = 0;
            while (pos < l.length()) {
                if (l.substring(pos).isBlank()) break;
                m.region(pos, l.length());
                if (!m.lookingAt()) {
                    throw new DefinitionError("syntax error near \"" + l.substring(pos).strip().split("\\s+")[0] + "\"", ln + 1, "D_SYNTAX");
                }
                toks.add(m.group().strip());
                lines.add(ln + 1);
                pos = m.end();
            }
        }
        List<ProbeDecl> out = new ArrayList<>();
        int[] i = {0};
        while (i[0] < toks.size()) {
            expect(toks, lines, i, "provider");
            String prov = ident(toks, lines, i);
            expect(toks, lines, i, "{");
            while (!peek(toks, i).equals("}")) {
                expect(toks, lines, i, "probe");
                String name = ident(toks, lines, i);
                expect(toks, lines, i, "(");
                List<String> types = new ArrayList<>();
                while (!peek(toks, i).equals(")")) {
                    int line = lines.get(Math.min(i[0], lines.size() - 1));
                    List<String> parts = new ArrayList<>();
                    int start = i[0];
                    while (!peek(toks, i).equals(",") && !peek(toks, i).equals(")")) {
                        String tk = peek(toks, i);
                        if (tk.isEmpty() || tk.equals(";") || tk.equals("{") || tk.equals("}") || tk.equals("(")) {
                            throw near(toks, lines, i);
                        }
                        if (parts.size() >= 2 && !tk.equals("*") && size(typeOf(parts)) == 0
                                && size(typeOf(parts.subList(0, parts.size() - 1))) != 0) {
                            throw near(toks, lines, i); // int len y: after a type and its name
                        }
                        parts.add(tk);
                        i[0]++;
                    }
                    if (parts.size() == 1 && parts.get(0).equals("void") && types.isEmpty() && peek(toks, i).equals(")")) break;
                    String type = typeOf(parts);
                    if (size(type) == 0 && parts.size() >= 2 && size(typeOf(parts.subList(0, parts.size() - 1))) != 0
                            && !parts.get(parts.size() - 1).equals("*")) {
                        type = typeOf(parts.subList(0, parts.size() - 1)); // a parameter name: probe p(int len)
                    } else if (size(type) == 0 && parts.size() >= 3 && size(typeOf(parts.subList(0, parts.size() - 2))) != 0) {
                        i[0] = start + parts.size() - 1;
                        throw near(toks, lines, i);
                    }
                    if (size(type) == 0) throw new DefinitionError("unknown type \"" + type + "\" in probe " + name, line, "D_DECL_TYPE");
                    types.add(type);
                    if (peek(toks, i).equals(",")) i[0]++;
                }
                expect(toks, lines, i, ")");
                if (peek(toks, i).equals(":")) {
                    // the translated argument list (probe p(int i, int j) : (int j, int i)): the
                    // notes carry the native arguments; the mapping is not kept
                    i[0]++;
                    expect(toks, lines, i, "(");
                    while (!peek(toks, i).equals(")")) {
                        String tk = peek(toks, i);
                        if (tk.isEmpty() || tk.equals(";") || tk.equals("{") || tk.equals("}")) throw near(toks, lines, i);
                        i[0]++;
                    }
                    expect(toks, lines, i, ")");
                }
                expect(toks, lines, i, ";");
                out.add(new ProbeDecl(prov, name, types));
            }
            expect(toks, lines, i, "}");
            expect(toks, lines, i, ";");
        }
        return out;
    }

    /** The type the tokens spell, pointers as " *". */
    private static String typeOf(List<String> parts) {
        StringBuilder t = new StringBuilder();
        for (String tk : parts) {
            if (!t.isEmpty() && !tk.equals("*")) t.append(' ');
            t.append(tk);
        }
        return t.toString().replace(" *", "*").replaceAll("\\*+", " *").strip();
    }

    private static String peek(List<String> toks, int[] i) {
        return i[0] < toks.size() ? toks.get(i[0]) : "";
    }

    private static void expect(List<String> toks, List<Integer> lines, int[] i, String what) throws DefinitionError {
        String t = peek(toks, i);
        if (!t.equals(what)) throw near(toks, lines, i);
        i[0]++;
    }

    private static String ident(List<String> toks, List<Integer> lines, int[] i) throws DefinitionError {
        String t = peek(toks, i);
        if (!t.matches("[A-Za-z_][A-Za-z0-9_]*")) throw near(toks, lines, i);
        i[0]++;
        return t;
    }

    private static DefinitionError near(List<String> toks, List<Integer> lines, int[] i) {
        if (i[0] >= toks.size()) {
            return new DefinitionError("syntax error near end of input", lines.isEmpty() ? 1 : lines.get(lines.size() - 1), "D_SYNTAX");
        }
        return new DefinitionError("syntax error near \"" + toks.get(i[0]) + "\"", lines.get(i[0]), "D_SYNTAX");
    }

    private static String stripComments(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            if (s.startsWith("/*", i)) {
                int e = s.indexOf("*/", i + 2);
                String c = s.substring(i, e < 0 ? s.length() : e + 2);
                b.append(c.replaceAll("[^\n]", " "));
                i += c.length() - 1;
            } else if (s.startsWith("//", i)) {
                while (i < s.length() && s.charAt(i) != '\n') i++;
                i--;
            } else {
                b.append(s.charAt(i));
            }
        }
        return b.toString();
    }

    /** Size in bytes of a declared type, negative when signed; 0 when unknown. */
    static int size(String type) {
        if (type.endsWith("*") || type.equals("string")) return 8; // a pointer; D's string is a char *
        String t = type.replace("const ", "").replace("volatile ", "").strip();
        return TYPES.getOrDefault(t, 0);
    }

    private static String cType(int size) {
        return switch (size) {
            case -1 -> "signed char";
            case 1 -> "unsigned char";
            case -2 -> "short";
            case 2 -> "unsigned short";
            case -4 -> "int";
            case 4 -> "unsigned int";
            case -8 -> "long";
            default -> "unsigned long";
        };
    }

    static String semaphore(ProbeDecl p) {
        return p.provider() + "_" + p.name() + "_semaphore";
    }

    static String macro(ProbeDecl p) {
        return (p.provider() + "_" + p.name().replace("__", "_")).toUpperCase(Locale.ROOT);
    }

    /** The -h header for {@code probes}. */
    static String header(String script, List<ProbeDecl> probes) {
        String guard = "_" + Path.of(script).getFileName().toString().replaceAll("[^A-Za-z0-9]", "_").toUpperCase(Locale.ROOT) + "_H";
        StringBuilder h = new StringBuilder();
        h.append("/*\n * Generated by dtrace -h from ").append(Path.of(script).getFileName())
                .append(": do not edit.\n * USDT probes as SystemTap SDT notes (.note.stapsdt), self-contained.\n */\n");
        h.append("#ifndef ").append(guard).append("\n#define ").append(guard).append("\n\n");
        h.append("#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
        h.append("#define _JDTRACE_SDT_BASE \\\n"
                + "  \".ifndef _.stapsdt.base\\n\" \\\n"
                + "  \".pushsection .stapsdt.base,\\\"aG\\\",\\\"progbits\\\",.stapsdt.base,comdat\\n\" \\\n"
                + "  \".weak _.stapsdt.base\\n.hidden _.stapsdt.base\\n_.stapsdt.base: .space 1\\n.size _.stapsdt.base, 1\\n\" \\\n"
                + "  \".popsection\\n.endif\\n\"\n\n");
        for (ProbeDecl p : probes) {
            String sem = semaphore(p);
            h.append("__attribute__((weak, visibility(\"hidden\"), section(\".probes\"))) volatile unsigned short ")
                    .append(sem).append(";\n");
            StringBuilder params = new StringBuilder(), argfmt = new StringBuilder(), operands = new StringBuilder();
            for (int i = 0; i < p.types().size(); i++) {
                int sz = size(p.types().get(i));
                if (i > 0) {
                    params.append(", ");
                    argfmt.append(' ');
                    operands.append(", ");
                }
                params.append("arg").append(i);
                argfmt.append(sz).append("@%").append(i);
                operands.append("\"nor\"((").append(cType(sz)).append(") (arg").append(i).append("))");
            }
            h.append("#define ").append(macro(p)).append("(").append(params).append(") \\\n")
                    .append("  __asm__ __volatile__(\"990: nop\\n\" \\\n")
                    .append("    \".pushsection .note.stapsdt,\\\"?\\\",\\\"note\\\"\\n.balign 4\\n\" \\\n")
                    .append("    \".4byte 992f-991f, 994f-993f, 3\\n991: .asciz \\\"stapsdt\\\"\\n992: .balign 4\\n\" \\\n")
                    .append("    \"993: .8byte 990b\\n.8byte _.stapsdt.base\\n.8byte ").append(sem).append("\\n\" \\\n")
                    .append("    \".asciz \\\"").append(p.provider()).append("\\\"\\n.asciz \\\"").append(p.name()).append("\\\"\\n\" \\\n")
                    .append("    \".asciz \\\"").append(argfmt).append("\\\"\\n994: .balign 4\\n.popsection\\n\" \\\n")
                    .append(typesNote(p))
                    .append("    _JDTRACE_SDT_BASE");
            if (!operands.isEmpty()) h.append(" \\\n    :: ").append(operands);
            h.append(")\n");
            h.append("#define ").append(macro(p)).append("_ENABLED() __builtin_expect(").append(sem).append(" != 0, 0)\n\n");
        }
        h.append("#ifdef __cplusplus\n}\n#endif\n\n#endif\n");
        return h.toString();
    }

    /** The note section that carries the declared argument types (see the theory above). */
    static final String TYPES_SECTION = ".note.jdtrace";

    /**
     * The probe's declared argument types as a note of {@link #TYPES_SECTION} (owner "jdtrace",
     * type 1; desc: provider, probe name as declared, then each type, each NUL-terminated), which
     * the USDT provider reads to type args[]; SystemTap's readers never look at this section.
     */
    private static String typesNote(ProbeDecl p) {
        StringBuilder t = new StringBuilder();
        for (String type : p.types()) {
            t.append(".asciz \\\"").append(type.equals("string") ? "char *" : type).append("\\\"\\n");
        }
        return "    \".pushsection " + TYPES_SECTION + ",\\\"?\\\",\\\"note\\\"\\n.balign 4\\n\" \\\n"
                + "    \".4byte 996f-995f, 998f-997f, 1\\n995: .asciz \\\"jdtrace\\\"\\n996: .balign 4\\n\" \\\n"
                + "    \"997: .asciz \\\"" + p.provider() + "\\\"\\n.asciz \\\"" + p.name() + "\\\"\\n" + t
                + "998: .balign 4\\n.popsection\\n\" \\\n";
    }

    /** The C source of the -G object: every semaphore, defined. */
    static String linkSource(List<ProbeDecl> probes) {
        StringBuilder c = new StringBuilder("/* dtrace -G: the USDT semaphores */\n");
        for (ProbeDecl p : probes) {
            c.append("__attribute__((section(\".probes\"), visibility(\"hidden\"))) volatile unsigned short ")
                    .append(semaphore(p)).append(";\n");
        }
        return c.toString();
    }

    /** -h / -G: 0, 1 on failure (one line on {@code err}), 2 on usage. */
    static int run(CommandLine cl, boolean link, PrintStream err) {
        List<CommandLine.Spec> scripts = cl.specs.stream().filter(CommandLine.Spec::isScript).toList();
        if (scripts.isEmpty()) {
            err.println("dtrace: -" + (link ? 'G' : 'h') + " requires one or more scripts (-s)");
            Usage.print(err);
            return 2;
        }
        boolean errtags = cl.all('x').stream().anyMatch(x -> x.equals("errtags"));
        List<ProbeDecl> probes = new ArrayList<>();
        for (CommandLine.Spec s : scripts) {
            try {
                probes.addAll(parse(Files.readString(Path.of(s.arg()))));
            } catch (IOException e) {
                err.println("dtrace: failed to open " + s.arg() + ": " + Invocation.strerror(e));
                return 1;
            } catch (DefinitionError e) {
                err.println("dtrace: failed to compile script " + s.arg() + ": " + (errtags ? "[" + e.tag + "] " : "")
                        + "line " + e.line + ": " + e.getMessage());
                return 1;
            }
        }
        String first = scripts.get(0).arg();
        String base = Path.of(first).getFileName().toString().replaceFirst("\\.d$", "");
        try {
            if (!link) {
                Path out = Path.of(cl.last('o') != null ? cl.last('o') : base + ".h");
                Files.writeString(out, header(first, probes), StandardCharsets.UTF_8);
                return 0;
            }
            Path out = Path.of(cl.last('o') != null ? cl.last('o') : base + ".o"); // prov.d -> prov.o, as dtrace
            Path src = Files.createTempFile("dtrace-G", ".c");
            try {
                Files.writeString(src, linkSource(probes));
                String cc = System.getenv().getOrDefault("CC", "cc");
                Process p = new ProcessBuilder(cc, "-c", "-fPIC", "-o", out.toString(), src.toString()).redirectErrorStream(true).start();
                p.getOutputStream().close();
                String msg = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                    err.println("dtrace: failed to link script " + first + ": " + cc + " failed: " + msg.lines().findFirst().orElse(""));
                    return 1;
                }
            } finally {
                Files.deleteIfExists(src);
            }
            return 0;
        } catch (IOException e) {
            err.println("dtrace: failed to write output: " + Invocation.strerror(e));
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("dtrace: interrupted");
            return 1;
        }
    }
}
