package org.jdtrace.elf;

/**
 * A SystemTap SDT probe site from {@code .note.stapsdt} (NT_STAPSDT, owner {@code stapsdt}).
 * {@code pc}, {@code base} and {@code semaphore} are link-time addresses (semaphore 0 when
 * none). When the file was prelinked the {@code .stapsdt.base} section moved with the code but
 * the note did not: {@link #pc(long)} applies that difference. {@code arguments} is the
 * argument string as written ({@code "8@%rbx -4@-12(%rbp)"}), empty for none.
 */
public record SdtNote(String provider, String name, long pc, long base, long semaphore,
        String arguments) {

    /** The probe's address given the actual address of the {@code .stapsdt.base} section. */
    public long pc(long stapsdtBase) {
        return base == 0 ? pc : pc + (stapsdtBase - base);
    }

    /** The semaphore's address, adjusted like {@link #pc(long)}; 0 when there is none. */
    public long semaphore(long stapsdtBase) {
        return semaphore == 0 || base == 0 ? semaphore : semaphore + (stapsdtBase - base);
    }

    /** The arguments split at blanks (SystemTap's separator); empty when there are none. */
    public java.util.List<String> argumentList() {
        String t = arguments.strip();
        return t.isEmpty() ? java.util.List.of() : java.util.List.of(t.split("\\s+"));
    }
}
