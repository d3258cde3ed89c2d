/*
 * The clause groups' ids across the rebuilds of a kernel program (ClauseProgram: a group is the
 * code of one list of clauses, named by an id that the program's lookup key carries: the syscall
 * provider's armed mask, a uprobe cookie's filter value). A rebuild swaps the program in first and
 * rewrites the keys' ids after, so for a moment a key names an id of the last program while the new
 * one runs. Two rules make every hit of that moment run either the complete old or the complete
 * new clause set, on the maps the consumer folds:
 *  - a group the last program had (the same key: the same clauses, the same argument layout)
 *    keeps its id, so an unchanged key runs the same code across the swap;
 *  - the new program also carries the last program's other groups under their old ids
 *    (retired()), built with the clauses the new build still takes on the same maps (a clause it
 *    no longer takes is left to the JVM, whose ECB is going), so a key whose group changed runs
 *    its old clauses until its id is rewritten. Fresh ids skip every id of the last program, and
 *    a retired group lives one program long: after the rewrite no key names it.
 * Ids are 1..0xfffe (0: no group).
 *
 * Not thread-safe: its owner's rebuild lock guards it.
 */
package org.jdtrace.perf.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class GroupIds<G> {

    private int next = 1;
    /** The running program's groups: key -> id, id -> group as built. */
    private Map<Object, Integer> last = Map.of();
    private Map<Integer, G> lastGroups = Map.of();
    private final Map<Object, Integer> building = new HashMap<>();

    /** The id of the group {@code key} in the build under way: the last program's, else a fresh one. */
    int id(Object key) {
        return building.computeIfAbsent(key, k -> {
            Integer kept = last.get(k);
            if (kept != null) return kept;
            int g;
            do {
                g = next;
                next = next % 0xfffe + 1;
            } while (lastGroups.containsKey(g) || building.containsValue(g));
            return g;
        });
    }

    /** The last program's groups whose ids the build under way does not use (each with its old id). */
    List<Map.Entry<Integer, G>> retired() {
        List<Map.Entry<Integer, G>> out = new ArrayList<>();
        lastGroups.forEach((id, g) -> {
            if (!building.containsValue(id)) out.add(Map.entry(id, g));
        });
        return out;
    }

    /** The build is running and its keys rewritten: its groups are the last program's now. */
    void installed(Map<Integer, G> groups) {
        last = Map.copyOf(building);
        lastGroups = Map.copyOf(groups);
        building.clear();
    }

    /** The build was given up (the kernel refused it): the last program's groups stand. */
    void abandon() {
        building.clear();
    }

    /** No program runs any group (none loaded, or the maps closed). */
    void clear() {
        last = Map.of();
        lastGroups = Map.of();
        building.clear();
    }
}
