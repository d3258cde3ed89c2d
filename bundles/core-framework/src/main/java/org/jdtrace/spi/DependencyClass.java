package org.jdtrace.spi;

/**
 * The architectural dependency class of DTrace's attribute model (dtrace_class_t), narrowest
 * first: on what an interface depends. {@link #label()} is the word dtrace(1M) prints.
 *
 * @since 1.5
 */
public enum DependencyClass {
    UNKNOWN("Unknown"), CPU("CPU"), PLATFORM("Platform"), GROUP("Group"), ISA("ISA"), COMMON("Common");

    private final String label;

    DependencyClass(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The class a word names (case-insensitive), or null. */
    public static DependencyClass parse(String word) {
        for (DependencyClass c : values()) {
            if (c.label.equalsIgnoreCase(word)) {
                return c;
            }
        }
        return null;
    }
}
