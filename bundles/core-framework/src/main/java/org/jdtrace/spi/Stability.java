package org.jdtrace.spi;

/**
 * A stability level of DTrace's attribute model (dtrace_stability_t), lowest first: how far a
 * name or a datum may be relied upon. {@link #label()} is the word dtrace(1M) prints.
 *
 * @since 1.5
 */
public enum Stability {
    INTERNAL("Internal"), PRIVATE("Private"), OBSOLETE("Obsolete"), EXTERNAL("External"),
    UNSTABLE("Unstable"), EVOLVING("Evolving"), STABLE("Stable"), STANDARD("Standard");

    private final String label;

    Stability(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The level a word names, as in {@code #pragma D attributes} (case-insensitive), or null. */
    public static Stability parse(String word) {
        for (Stability s : values()) {
            if (s.label.equalsIgnoreCase(word)) {
                return s;
            }
        }
        return null;
    }
}
