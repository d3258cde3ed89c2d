package org.jdtrace.sdt;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.annotation.versioning.ProviderType;

/**
 * A provider of static probes declared by Java code (a USDT provider definition, {@code provider
 * myapp { probe query__start(char *, int); };}, written in Java). Declare it once, in a static
 * final field of a class of the declaring bundle, with its probes:
 *
 * <pre>{@code
 * static final StaticProvider MYAPP = StaticProvider.define(MyApp.class, "myapp");
 * static final StaticProbe QUERY_START = MYAPP.probe("query-start", ArgType.STRING, ArgType.INT);
 * ...
 * QUERY_START.fire(sql, rows);
 * }</pre>
 *
 * Its probes are {@code myapp:<bundle symbolic name>::query-start} (the owner class's bundle;
 * {@code java} for a class outside any bundle) while that bundle is started and provider-sdt
 * runs. The owner class is held weakly: declaring keeps no bundle's class loader alive.
 * Thread-safe.
 */
@ProviderType
public final class StaticProvider {

    private final String name;
    private final WeakReference<Class<?>> owner;
    private final List<StaticProbe> probes = new CopyOnWriteArrayList<>();

    StaticProvider(Class<?> owner, String name) {
        this.owner = new WeakReference<>(owner);
        this.name = name;
    }

    /** Providers of the platform itself, whose names a Java provider may not take. */
    private static final List<String> RESERVED = List.of("dtrace", "profile", "pid", "syscall", "fbt", "sdt",
            "proc", "sched", "io", "fasttrap", "lockstat", "jsdt");

    /**
     * Declares the provider {@code name} (a D identifier: letters, digits, {@code _}) for the
     * bundle of {@code owner}; declaring again with the same owner and name returns the same
     * provider. Throws IllegalArgumentException for a name D cannot spell, a name of one of the
     * platform's providers, or a name ending in a digit (it would read as a process's USDT
     * provider, {@code python1234}).
     */
    public static StaticProvider define(Class<?> owner, String name) {
        if (owner == null || name == null || !name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
            throw new IllegalArgumentException("invalid provider name: " + name);
        }
        if (RESERVED.contains(name) || Character.isDigit(name.charAt(name.length() - 1))) {
            throw new IllegalArgumentException("provider name " + name + " is reserved");
        }
        return StaticProbeTable.define(owner, name);
    }

    /**
     * Declares the probe {@code name} with arguments of {@code args} types (at most 10).
     * {@code __} in the name is shown as {@code -}, as dtrace -h does ({@code query__start} is
     * {@code query-start}). Declaring the same name again with the same types returns the same
     * probe; with other types it throws IllegalArgumentException.
     */
    public StaticProbe probe(String name, ArgType... args) {
        if (name == null || !name.matches("[A-Za-z_][A-Za-z0-9_-]*")) {
            throw new IllegalArgumentException("invalid probe name: " + name);
        }
        if (args.length > StaticProbe.MAX_ARGS) {
            throw new IllegalArgumentException("probe " + name + ": more than " + StaticProbe.MAX_ARGS + " arguments");
        }
        String dname = name.replace("__", "-");
        StaticProbe p;
        synchronized (probes) {
            for (StaticProbe q : probes) {
                if (q.name().equals(dname)) {
                    if (!q.args().equals(List.of(args))) {
                        throw new IllegalArgumentException("probe " + this.name + ":::" + dname
                                + " is already declared with arguments " + q.args());
                    }
                    return q;
                }
            }
            p = new StaticProbe(this, dname, List.of(args));
            probes.add(p);
        }
        StaticProbeTable.changed(this);
        return p;
    }

    /** The provider's name. */
    public String name() {
        return name;
    }

    /** The class that declared it, or null once that class has been unloaded. */
    public Class<?> owner() {
        return owner.get();
    }

    /** Its probes, in declaration order. */
    public List<StaticProbe> probes() {
        return List.copyOf(probes);
    }

    @Override
    public String toString() {
        Class<?> o = owner();
        return name + " (" + (o == null ? "unloaded" : o.getName()) + ")";
    }
}
