package org.jdtrace.spi;

/**
 * One set of stability attributes (dtrace_attribute_t): the stability of a name, of the data
 * behind it, and its dependency class, printed {@code Stable/Stable/Common}.
 *
 * @since 1.5
 */
public record Attributes(Stability name, Stability data, DependencyClass dependency) {

    /** What D gives whatever declares nothing (_dtrace_defattr). */
    public static final Attributes STABLE_COMMON = new Attributes(Stability.STABLE, Stability.STABLE,
            DependencyClass.COMMON);
    public static final Attributes EVOLVING_COMMON = new Attributes(Stability.EVOLVING, Stability.EVOLVING,
            DependencyClass.COMMON);
    public static final Attributes UNSTABLE_COMMON = new Attributes(Stability.UNSTABLE, Stability.UNSTABLE,
            DependencyClass.COMMON);
    public static final Attributes PRIVATE_UNKNOWN = new Attributes(Stability.PRIVATE, Stability.PRIVATE,
            DependencyClass.UNKNOWN);

    public Attributes {
        if (name == null || data == null || dependency == null) {
            throw new IllegalArgumentException("an attribute is missing");
        }
    }

    public static Attributes of(Stability name, Stability data, DependencyClass dependency) {
        return new Attributes(name, data, dependency);
    }

    /** Each part the lower of the two (dt_attr_min). */
    public Attributes min(Attributes o) {
        return new Attributes(name.compareTo(o.name) <= 0 ? name : o.name, data.compareTo(o.data) <= 0 ? data : o.data,
                dependency.compareTo(o.dependency) <= 0 ? dependency : o.dependency);
    }

    /** True if any part is below the same part of {@code minimum}. */
    public boolean below(Attributes minimum) {
        return name.compareTo(minimum.name) < 0 || data.compareTo(minimum.data) < 0
                || dependency.compareTo(minimum.dependency) < 0;
    }

    /**
     * {@code name[/data[/class]]} as dtrace_str2attr reads it: words case-insensitive, a part left
     * out is the highest (Standard, Common); null if malformed.
     */
    public static Attributes parse(String text) {
        String[] w = text.split("/", -1);
        if (w.length > 3 || w[0].isEmpty()) {
            return null;
        }
        Stability n = Stability.parse(w[0]);
        Stability d = w.length > 1 ? Stability.parse(w[1]) : Stability.STANDARD;
        DependencyClass c = w.length > 2 ? DependencyClass.parse(w[2]) : DependencyClass.COMMON;
        return n == null || d == null || c == null ? null : new Attributes(n, d, c);
    }

    @Override
    public String toString() {
        return name.label() + "/" + data.label() + "/" + dependency.label();
    }
}
