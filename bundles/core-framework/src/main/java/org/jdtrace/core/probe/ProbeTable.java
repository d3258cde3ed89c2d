/*
 * The probe table (dtrace_probes[] with dtrace_bymod / dtrace_byfunc / dtrace_byname hashes).
 *
 * Every live probe is in byId and in one hash per name part (provider, module, function,
 * name), each mapping a name to the probes carrying it. A lookup by four exact names, or a
 * match whose pattern has at least one exact part, walks only the smallest bucket among its
 * exact parts and checks the remaining parts; a pattern with no exact part scans every probe
 * (as dtrace_match does when it has no hash to use). Results are in probe-ID order.
 *
 * IDs start at 1 and are never reused: a retired probe's ID stays dead even if a probe with
 * the same names is created again.
 *
 * Locking: not thread-safe; the framework calls it only while holding its lock (dtrace_lock).
 */
package org.jdtrace.core.probe;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

public final class ProbeTable {

    private final TreeMap<Integer, ProbeImpl> byId = new TreeMap<>();
    @SuppressWarnings("unchecked")
    private final Map<String, Set<ProbeImpl>>[] byPart = new Map[] {
        new HashMap<>(), new HashMap<>(), new HashMap<>(), new HashMap<>()
    };
    private int lastId;

    /** The next probe ID; never reused. */
    public int nextId() {
        return ++lastId;
    }

    public void add(ProbeImpl p) {
        byId.put(p.id(), p);
        for (int i = 0; i < 4; i++) {
            byPart[i].computeIfAbsent(partOf(p, i), k -> new LinkedHashSet<>()).add(p);
        }
    }

    /** {@code p} is found under {@code alias} in part {@code part} too (ProbeImpl.addAlias). */
    public void addAlias(ProbeImpl p, int part, String alias) {
        byPart[part].computeIfAbsent(alias, k -> new LinkedHashSet<>()).add(p);
    }

    public boolean remove(ProbeImpl p) {
        if (byId.remove(p.id()) == null) {
            return false;
        }
        for (int i = 0; i < 4; i++) {
            unindex(i, partOf(p, i), p);
        }
        for (String alias : p.functionAliases()) {
            unindex(ProbePattern.FUNCTION, alias, p);
        }
        for (String alias : p.nameAliases()) {
            unindex(ProbePattern.NAME, alias, p);
        }
        return true;
    }

    private void unindex(int i, String key, ProbeImpl p) {
        Set<ProbeImpl> bucket = byPart[i].get(key);
        if (bucket != null) {
            bucket.remove(p);
            if (bucket.isEmpty()) {
                byPart[i].remove(key);
            }
        }
    }

    public ProbeImpl byId(int id) {
        return byId.get(id);
    }

    public int size() {
        return byId.size();
    }

    public Collection<ProbeImpl> all() {
        return List.copyOf(byId.values());
    }

    /** The probe with these four exact names, or null. */
    public ProbeImpl lookup(String provider, String module, String function, String name) {
        // the smaller of the function and name buckets: a provider making one entry and one
        // return probe per function would otherwise walk every "entry" probe for each creation
        Set<ProbeImpl> bucket = byPart[ProbePattern.FUNCTION].get(function);
        Set<ProbeImpl> byName = byPart[ProbePattern.NAME].get(name);
        if (bucket == null || byName == null) {
            return null;
        }
        if (byName.size() < bucket.size()) {
            bucket = byName;
        }
        for (ProbeImpl p : bucket) {
            if (p.provider().equals(provider) && p.module().equals(module) && p.function().equals(function)
                    && p.name().equals(name)) {
                return p;
            }
        }
        return null;
    }

    /** Every probe the pattern matches, in ID order. */
    public List<ProbeImpl> match(ProbePattern pattern) {
        Collection<ProbeImpl> candidates = null;
        for (int i = 0; i < 4; i++) {
            if (pattern.isExact(i)) {
                Set<ProbeImpl> bucket = byPart[i].get(pattern.part(i));
                if (bucket == null) {
                    return List.of();
                }
                if (candidates == null || bucket.size() < candidates.size()) {
                    candidates = bucket;
                }
            }
        }
        if (candidates == null) {
            candidates = byId.values();
        }
        List<ProbeImpl> out = new ArrayList<>();
        for (ProbeImpl p : candidates) {
            if (pattern.matches(p)) {
                out.add(p);
            }
        }
        out.sort(Comparator.comparingInt(ProbeImpl::id));
        return out;
    }

    /** Probes whose part {@code i} is exactly {@code value} (for retiring a module's probes). */
    public List<ProbeImpl> withPart(int i, String value) {
        Set<ProbeImpl> bucket = byPart[i].get(value);
        if (bucket == null) {
            return List.of();
        }
        List<ProbeImpl> out = new ArrayList<>(bucket);
        out.sort(Comparator.comparingInt(ProbeImpl::id));
        return out;
    }

    private static String partOf(ProbeImpl p, int i) {
        return switch (i) {
            case ProbePattern.PROVIDER -> p.provider();
            case ProbePattern.MODULE -> p.module();
            case ProbePattern.FUNCTION -> p.function();
            default -> p.name();
        };
    }
}
