/*
 * A clause offered to a provider to run where its events happen (in the kernel, as BPF), in a
 * small IR the D compiler writes and a provider compiles or declines. It is the seam of clauses
 * that never leave the kernel: DTrace on Linux (Oracle's 2.x) compiles all of D to BPF; jdtrace
 * offers the part a kernel program can do alone.
 *
 * What the compiler offers (the statement's Statement.kernel, one instance per statement):
 *  - predicate: the clause's predicate, null when it has none. It is a FILTER HINT for every ECB
 *    of the statement, as Probe.pidFilter is: a provider may drop an event for which no ECB's
 *    predicate holds (Probe.kernelClauses lists them, null for an ECB that has no kernel form);
 *    the JVM still runs the whole predicate, so ignoring it is always correct.
 *  - aggregation: set only when the whole clause is `/pred/ { @name[keys] = f(value); }` with
 *    keys and value in this IR. A provider that can keep that aggregation itself (a BPF map) may
 *    TAKE the clause for a probe: it says so with Probe.runInKernel(clause, true), the ECB then
 *    runs nothing in the JVM for that probe, and the provider hands what it gathered to
 *    aggregation.sink() (Sink.attach a Source the consumer polls at each snapshot). A provider
 *    that loses the kernel program (the verifier refuses it) calls runInKernel(clause, false)
 *    and the clause runs in the JVM again.
 *
 * Thread-locals (since 1.10): a thread-local scalar (self->x) that only clauses of this form read
 * and write lives where those clauses run, in the kernel: the compiler offers such a clause with
 * its stores ({@code stores}, run in order after the aggregation; a store of 0 deletes the
 * variable, DTrace's semantics) and reads (ThreadLocal), and marks it {@code whole}: a provider
 * takes a whole clause (Probe.runInKernel(clause, true), even one without an aggregation); when it
 * cannot (since 1.11), it gives EVERY whole clause it was offered back to the JVM together
 * (Probe.kernelRefused each: the clauses that share a thread-local are all whole clauses of one
 * provider, so each variable still lives in one place, then in the JVM's thread-locals). A store the provider's per-thread store cannot hold counts in {@code dynvarDrops}
 * (DTrace's dynamic variable drops). Each consumer's thread-locals are its own: every whole
 * clause of one consumer carries the same {@code dynvarDrops} object, by which a provider keeps
 * consumers' variables apart (two consumers' self->ts are two variables). TIMESTAMP is the event's time in the kernel's clock (its
 * differences are what thread-local clauses use it for).
 *
 * required (the consumer's -x kernelclauses=force, for tests): a provider that runs clauses in
 * the kernel but cannot take this one's aggregation refuses the enable (ProviderException) instead
 * of leaving the clause to the JVM; so does one offered a jvmOnly clause (since 1.11: an aggregating
 * clause with no kernel form, {@code jvmOnly} its reason; no predicate, no aggregation).
 *
 * Values: every Expr is a 64-bit integer except Str and the string variables (EXECNAME,
 * PROBEFUNC), which appear only as StrCompare operands and aggregation keys, and Stack (since
 * 1.11), only an aggregation key. Integer semantics are
 * the D compiler's (Binary.unsigned selects unsigned compares and shifts, Cast narrows as C).
 * There is no division: a division by zero must raise dtrace:::ERROR, which only the JVM does.
 *
 * Aggregation data (Folder.add): the words of DTrace's dtrace_aggregate_* for the function, as
 * the consumer keeps them: COUNT {n}, SUM {s}, MIN {m}, MAX {m}, AVG {n, s}, STDDEV
 * {n, s, sumsq high, sumsq low}, QUANTIZE 127 power-of-two buckets (bucket 63 counts 0),
 * LQUANTIZE {below base, levels.., at or above limit} (parameters base, step, levels), LLQUANTIZE
 * as the consumer's LogLinear (parameters factor, low, high, nsteps, then, since 1.10, the lowest
 * value of each bucket but the first, ascending: a value's bucket is the number of them <= it;
 * absent when the layout has no such list). Words other than MIN's and
 * MAX's are what was added since the previous add() of the same key (deltas); MIN and MAX give the
 * extreme so far. add() runs on the consumer's thread, inside Source.fold.
 *
 * Immutable apart from what the consumer's sink keeps; shared by every ECB of the statement.
 *
 * @since 1.9
 */
package org.jdtrace.spi;

import java.util.List;

public record KernelClause(String name, Expr predicate, Aggregation aggregation, boolean required, List<Store> stores,
        boolean whole, java.util.function.LongConsumer dynvarDrops, String jvmOnly) {

    /** A clause without jvmOnly. */
    public KernelClause(String name, Expr predicate, Aggregation aggregation, boolean required, List<Store> stores,
            boolean whole, java.util.function.LongConsumer dynvarDrops) {
        this(name, predicate, aggregation, required, stores, whole, dynvarDrops, null);
    }

    /**
     * A required clause (kernelclauses=force) that is one aggregating action the kernel cannot
     * run at all (its predicate, keys or value have no form here: a ustack() key, a string
     * function...): {@code reason} says why. A provider that runs clauses in the kernel refuses its
     * enable with that reason, as for an aggregation it cannot take.
     *
     * @since 1.11
     */
    public static KernelClause jvmOnly(String name, String reason) {
        return new KernelClause(name, null, null, true, List.of(), false, n -> { }, reason);
    }

    /** A clause without thread-locals. */
    public KernelClause(String name, Expr predicate, Aggregation aggregation, boolean required) {
        this(name, predicate, aggregation, required, List.of(), false, n -> { });
    }

    /** A kernel-evaluable expression. */
    public sealed interface Expr permits Const, Str, Var, Arg, Unary, Binary, StrCompare, Cast, Ternary, ThreadLocal, Stack {}

    /**
     * The kernel stack at the event, {@code frames} deep (stack(n), or the options stackframes and
     * maxframes as the compiler resolved them): only an aggregation key. Folder.add gives it as a
     * String[] of its frames, innermost first, each as ProbeContext.ksym names it (else its
     * address as 0x hex), exactly what the clause's stack() would give in the JVM.
     *
     * @since 1.11
     */
    public record Stack(int frames) implements Expr {}

    /**
     * A thread-local integer scalar (self->name) of the calling thread, 0 when unset; {@code id}
     * tells the program's thread-locals apart (the compiler's slot).
     *
     * @since 1.10
     */
    public record ThreadLocal(int id, String name) implements Expr {}

    /**
     * {@code self->name = value} (0 deletes it).
     *
     * @since 1.10
     */
    public record Store(ThreadLocal variable, Expr value) {}

    public record Const(long value) implements Expr {}

    /** A string constant (a StrCompare operand). */
    public record Str(String value) implements Expr {}

    /** What the event knows: the calling thread, its process, the probe, the call's errno. */
    public enum Variable { PID, TID, PPID, UID, ERRNO, EXECNAME, PROBEFUNC, TIMESTAMP }

    public record Var(Variable which) implements Expr {}

    /** arg0..arg9 (the probe's integer arguments, as ProbeContext.arg gives them). */
    public record Arg(int index) implements Expr {}

    public enum UnOp { NEG, NOT, BITNOT }

    public record Unary(UnOp op, Expr operand) implements Expr {}

    /** D's integer operators without division; LAND, LOR and LXOR give 0 or 1. */
    public enum BinOp { ADD, SUB, MUL, SHL, SHR, AND, OR, XOR, LT, LE, GT, GE, EQ, NE, LAND, LOR, LXOR }

    public record Binary(BinOp op, Expr left, Expr right, boolean unsigned) implements Expr {}

    /** A comparison of two strings (strcmp order; LT..NE only), 0 or 1. */
    public record StrCompare(BinOp op, Expr left, Expr right) implements Expr {}

    /** A conversion to an integer of {@code width} bytes (1, 2, 4, 8). */
    public record Cast(Expr operand, int width, boolean signed) implements Expr {}

    /** cond ? then : otherwise, integers only. */
    public record Ternary(Expr cond, Expr then, Expr otherwise) implements Expr {}

    public enum Function { COUNT, SUM, MIN, MAX, AVG, STDDEV, QUANTIZE, LQUANTIZE, LLQUANTIZE }

    /**
     * {@code @name[keys] = function(value[, ..., increment])}: {@code value} null for COUNT,
     * {@code increment} null for 1; {@code parameters} see the file comment; {@code dataWords}
     * the number of data words add() takes.
     */
    public record Aggregation(String name, Function function, List<Expr> keys, Expr value, Expr increment,
            long[] parameters, int dataWords, Sink sink) {}

    /** The consumer's side of a taken aggregation. */
    public interface Sink {
        /** A provider took the clause: {@code source} is folded in at each snapshot until detached. */
        void attach(Source source);

        /** The provider no longer gathers for the clause (disabled, or back on the JVM path). */
        void detach(Source source);
    }

    /** A provider's store of a taken aggregation (its BPF map). */
    public interface Source {
        /** Hands everything gathered since the previous fold to {@code folder} (consumer's thread). */
        void fold(Folder folder);
    }

    public interface Folder {
        /**
         * One key's words (see the file comment); {@code key} holds Longs, Strings and, for a
         * Stack key, String[] frames.
         */
        void add(Object[] key, long[] data);

        /** Updates the provider could not store (a full map): DTrace's aggregation drops. */
        void drops(long count);

        /**
         * As {@link #drops(long)}, of updates made on {@code cpu}: dtrace prints drops by CPU.
         *
         * @since 1.10
         */
        default void drops(int cpu, long count) {
            drops(count);
        }
    }
}
