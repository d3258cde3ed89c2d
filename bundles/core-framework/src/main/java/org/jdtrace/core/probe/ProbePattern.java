/*
 * A probe description compiled for matching (dtrace_probekey_t). Each of the four parts is
 * classified once, as dtrace_probekey does:
 *
 *   ""           matches any name (dtrace_match_nul)
 *   exact name   string equality; the probe table answers it from that part's hash
 *   glob         Glob.match, reached only by scanning (dtrace_match_glob)
 *
 * Immutable and thread-safe.
 */
package org.jdtrace.core.probe;

import org.jdtrace.spi.Glob;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;

public final class ProbePattern {

    /** The four parts, in order provider, module, function, name. */
    public static final int PROVIDER = 0, MODULE = 1, FUNCTION = 2, NAME = 3;

    private final ProbeDescription description;
    private final String[] parts;
    private final byte[] kinds;

    static final byte ANY = 0, EXACT = 1, GLOB = 2;

    public ProbePattern(ProbeDescription d) {
        this.description = d;
        this.parts = new String[] {d.provider(), d.module(), d.function(), d.name()};
        this.kinds = new byte[4];
        for (int i = 0; i < 4; i++) {
            kinds[i] = parts[i].isEmpty() ? ANY : Glob.isGlob(parts[i]) ? GLOB : EXACT;
        }
    }

    public ProbeDescription description() {
        return description;
    }

    String part(int i) {
        return parts[i];
    }

    boolean isExact(int i) {
        return kinds[i] == EXACT;
    }

    /** Matches one name against part {@code i}. */
    public boolean matchesPart(int i, String value) {
        return switch (kinds[i]) {
            case ANY -> true;
            case EXACT -> parts[i].equals(value);
            default -> Glob.match(parts[i], value);
        };
    }

    public boolean matches(String provider, String module, String function, String name) {
        return matchesPart(PROVIDER, provider) && matchesPart(MODULE, module)
                && matchesPart(FUNCTION, function) && matchesPart(NAME, name);
    }

    /** Whether the pattern matches {@code p}, whose function and name parts may also go by their aliases. */
    public boolean matches(Probe p) {
        if (matches(p.provider(), p.module(), p.function(), p.name())) return true;
        if (!(p instanceof ProbeImpl pi) || (pi.functionAliases().isEmpty() && pi.nameAliases().isEmpty())) return false;
        if (!matchesPart(PROVIDER, p.provider()) || !matchesPart(MODULE, p.module())) {
            return false;
        }
        return (matchesPart(FUNCTION, p.function()) || anyMatches(FUNCTION, pi.functionAliases()))
                && (matchesPart(NAME, p.name()) || anyMatches(NAME, pi.nameAliases()));
    }

    private boolean anyMatches(int part, java.util.List<String> names) {
        for (String n : names) {
            if (matchesPart(part, n)) return true;
        }
        return false;
    }

    /**
     * Whether a provider named {@code providerName} may own probes this pattern names, so that
     * it is asked to provide() them: the provider part matches the name, or names one of a
     * per-process family ({@code pid1234} for {@code pid}).
     */
    public boolean mayNameProvider(String providerName) {
        if (matchesPart(PROVIDER, providerName)) {
            return true;
        }
        String p = parts[PROVIDER];
        if (kinds[PROVIDER] == GLOB) {
            // pid* or pid12?4 or p*d1234: the glob may name members of the family
            int d = p.length();
            while (d > 0 && Character.isDigit(p.charAt(d - 1))) {
                d--;
            }
            return p.startsWith(providerName) || Glob.match(p, providerName + "0")
                    || Glob.match(p, providerName + "1")
                    || (d < p.length() && Glob.match(p, providerName + p.substring(d)));
        }
        if (kinds[PROVIDER] == EXACT && p.length() > providerName.length() && p.startsWith(providerName)) {
            for (int i = providerName.length(); i < p.length(); i++) {
                if (!Character.isDigit(p.charAt(i))) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * Whether the provider part is one name ending in a process id ({@code myapp1234}): a
     * description per-process providers (Provider.providesPerProcess) are asked to provide.
     */
    public boolean namesProcess() {
        String p = parts[PROVIDER];
        if (kinds[PROVIDER] != EXACT) {
            return false;
        }
        return !org.jdtrace.spi.ProbeDescription.processDigits(p).isEmpty();
    }

    @Override
    public String toString() {
        return description.toString();
    }
}
