/*
 * dtrace(1M)'s argument vector, parsed the way dtrace.c parses it.
 *
 * dtrace runs getopt(3) over argv in a loop: options and operands may be interleaved, every
 * operand that is not an option argument becomes a macro argument ($1, $2, ...), and "--" only
 * ends the current getopt pass (the next word is taken as an operand, then option parsing goes on).
 * The options are kept in the order given because their order matters: -x options are applied in
 * order, and the probe specifications (-n -P -m -f -i -s) are compiled and enabled in order.
 *
 * When dtrace is a #! interpreter (#!/usr/sbin/dtrace -qs), Linux hands the whole rest of the #!
 * line to it as one word ("-q -s" stays one word): a first word that is an option cluster with
 * spaces is split on whitespace, as dtrace does.
 *
 * Parsing is pure: it never touches a consumer, so that usage errors exit 2 before anything runs.
 */
package org.jdtrace.libdtrace.cmd;

import java.util.ArrayList;
import java.util.List;

final class CommandLine {

    /** dtrace's option string: a letter followed by ':' takes an argument. */
    static final String OPTSTRING = "3:6:aAb:Bc:CD:ef:FGhHi:I:lL:m:n:o:p:P:qs:SU:vVwW:x:X:Z";

    /** What dtrace is asked to do; only one of -l, -V, -h, -G, -A may be given. */
    enum Mode { EXEC, LIST, VERSION, HEADER, LINK, ANON }

    /** One option with its argument (null for a flag), in command-line order. */
    record Option(char letter, String arg) {}

    /** A probe specification: -n/-P/-m/-f/-i with its text, or -s with the script path. */
    record Spec(char letter, String arg) {
        boolean isScript() {
            return letter == 's';
        }
    }

    /** A usage error: dtrace prints the message (if any), then its usage text, and exits 2. */
    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message, null, false, false);
        }
    }

    final List<Option> options = new ArrayList<>();
    final List<Spec> specs = new ArrayList<>();
    /** Operands: the macro arguments $1..$n. */
    final List<String> operands = new ArrayList<>();
    Mode mode = Mode.EXEC;

    boolean has(char letter) {
        for (Option o : options) {
            if (o.letter() == letter) {
                return true;
            }
        }
        return false;
    }

    List<String> all(char letter) {
        List<String> r = new ArrayList<>();
        for (Option o : options) {
            if (o.letter() == letter) {
                r.add(o.arg());
            }
        }
        return r;
    }

    String last(char letter) {
        List<String> a = all(letter);
        return a.isEmpty() ? null : a.get(a.size() - 1);
    }

    static CommandLine parse(List<String> argv) throws UsageException {
        List<String> args = splitInterpreterLine(argv);
        CommandLine cl = new CommandLine();
        int modes = 0;
        int i = 0;
        while (i < args.size()) {
            String word = args.get(i);
            if (word.equals("--")) {
                // getopt stops here; dtrace takes the next word as an operand and goes on.
                i++;
                if (i < args.size()) {
                    cl.operands.add(args.get(i));
                    i++;
                }
                continue;
            }
            if (!word.startsWith("-") || word.length() == 1) {
                cl.operands.add(word);
                i++;
                continue;
            }
            int j = 1;
            i++;
            while (j < word.length()) {
                char c = word.charAt(j++);
                int at = OPTSTRING.indexOf(c);
                if (at < 0 || c == ':') {
                    throw new UsageException("illegal option -- " + c);
                }
                boolean takesArg = at + 1 < OPTSTRING.length() && OPTSTRING.charAt(at + 1) == ':';
                String arg = null;
                if (takesArg) {
                    if (j < word.length()) {
                        arg = word.substring(j);
                    } else if (i < args.size()) {
                        arg = args.get(i++);
                    } else {
                        throw new UsageException("option requires an argument -- " + c);
                    }
                    j = word.length();
                }
                switch (c) {
                    case 'l' -> { cl.mode = Mode.LIST; modes++; }
                    case 'V' -> { cl.mode = Mode.VERSION; modes++; }
                    case 'h' -> { cl.mode = Mode.HEADER; modes++; }
                    case 'G' -> { cl.mode = Mode.LINK; modes++; }
                    case 'A' -> { cl.mode = Mode.ANON; modes++; }
                    case '3' -> {
                        if (!arg.equals("2")) {
                            throw new UsageException("illegal option -- 3" + arg);
                        }
                    }
                    case '6' -> {
                        if (!arg.equals("4")) {
                            throw new UsageException("illegal option -- 6" + arg);
                        }
                    }
                    case 'n', 'P', 'm', 'f', 'i', 's' -> cl.specs.add(new Spec(c, arg));
                    default -> { }
                }
                cl.options.add(new Option(c, arg));
            }
        }
        if (modes > 1) {
            throw new UsageException("only one of the [-AGhlV] options can be specified at a time");
        }
        return cl;
    }

    /** "#!/usr/sbin/dtrace -q -s" gives "-q -s" as one word: split it as dtrace does. */
    private static List<String> splitInterpreterLine(List<String> argv) {
        if (argv.isEmpty()) {
            return argv;
        }
        String first = argv.get(0);
        if (!first.startsWith("-") || first.strip().equals(first) && !first.matches("(?s).*\\s.*")) {
            return argv;
        }
        List<String> out = new ArrayList<>();
        for (String w : first.strip().split("\\s+")) {
            if (!w.isEmpty()) {
                out.add(w);
            }
        }
        out.addAll(argv.subList(1, argv.size()));
        return out;
    }
}
