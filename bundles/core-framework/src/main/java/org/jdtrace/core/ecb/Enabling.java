/*
 * A retained enabling (dtrace_enabling_t): one statement of one consumer with its probe
 * descriptions. It lives as long as its consumer, whatever happens to the probes: when probes
 * that match appear later (a provider registers, a bundle resolves, provide() makes them) the
 * framework matches them against every retained enabling and creates their ECBs, so they fire
 * with no new command; when probes retire, their ECBs go and the enabling stays.
 *
 * At most one ECB per probe and enabling, even when several descriptions of the statement match
 * the same probe. Guarded by the framework lock.
 */
package org.jdtrace.core.ecb;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jdtrace.engine.Statement;
import org.jdtrace.core.probe.ProbePattern;
import org.jdtrace.spi.Probe;
import org.jdtrace.spi.ProbeDescription;

public final class Enabling {

    private final EcbOwner owner;
    private final Statement statement;
    private final List<ProbePattern> patterns;
    private final Map<Integer, Ecb> ecbsByProbe = new LinkedHashMap<>();

    public Enabling(EcbOwner owner, Statement statement) {
        this.owner = owner;
        this.statement = statement;
        List<ProbePattern> ps = new ArrayList<>();
        for (ProbeDescription d : statement.descriptions()) {
            ps.add(new ProbePattern(d));
        }
        this.patterns = List.copyOf(ps);
    }

    public EcbOwner owner() {
        return owner;
    }

    public Statement statement() {
        return statement;
    }

    public List<ProbePattern> patterns() {
        return patterns;
    }

    public boolean matches(Probe p) {
        for (ProbePattern pattern : patterns) {
            if (pattern.matches(p)) {
                return true;
            }
        }
        return false;
    }

    public boolean hasEcb(Probe p) {
        return ecbsByProbe.containsKey(p.id());
    }

    /** Creates the ECB of this enabling on {@code p}, or returns null if it already has one. */
    public Ecb createEcb(Probe p) {
        if (ecbsByProbe.containsKey(p.id())) {
            return null;
        }
        Ecb ecb = new Ecb(owner.nextEpid(), p, this);
        ecbsByProbe.put(p.id(), ecb);
        owner.added(ecb);
        return ecb;
    }

    /** Forgets the ECB on {@code p} (the probe retires); returns it, or null. */
    public Ecb removeEcb(Probe p) {
        Ecb ecb = ecbsByProbe.remove(p.id());
        if (ecb != null) {
            owner.removed(ecb);
        }
        return ecb;
    }

    public Collection<Ecb> ecbs() {
        return List.copyOf(ecbsByProbe.values());
    }
}
