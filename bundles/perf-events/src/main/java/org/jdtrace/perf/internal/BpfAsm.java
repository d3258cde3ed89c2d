/*
 * A small eBPF assembler: the instructions this bundle's generated programs use, as
 * linux/bpf.h (and the kernel's Documentation/bpf/instruction-set) encodes them: 8 bytes each,
 * little-endian {u8 opcode; u4 dst, u4 src; s16 off; s32 imm}; ld_imm64 of a map descriptor
 * takes two slots (src = BPF_PSEUDO_MAP_FD). Jumps name labels; code() resolves them. Not
 * thread-safe; one instance builds one program.
 */
package org.jdtrace.perf.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class BpfAsm {

    static final int R0 = 0, R1 = 1, R2 = 2, R3 = 3, R4 = 4, R5 = 5, R6 = 6, R7 = 7, R8 = 8, R9 = 9, R10 = 10;
    // helper function ids (enum bpf_func_id)
    static final int MAP_LOOKUP_ELEM = 1, MAP_UPDATE_ELEM = 2, MAP_DELETE_ELEM = 3, GET_CURRENT_PID_TGID = 14, GET_CURRENT_UID_GID = 15,
            GET_CURRENT_COMM = 16, PERF_EVENT_OUTPUT = 25, GET_CURRENT_TASK = 35, PROBE_READ_USER = 112,
            PROBE_READ_KERNEL = 113, PROBE_READ_USER_STR = 114, GET_ATTACH_COOKIE = 174, SEND_SIGNAL = 109,
            SEND_SIGNAL_THREAD = 117, GET_CURRENT_TASK_BTF = 158, TASK_PT_REGS = 175;
    /** The unit of a user stack copy (userPages). */
    static final int PAGE = 4096;

    private final List<long[]> insns = new ArrayList<>(); // {opcode, dst, src, off, imm}
    private final Map<Integer, String> jumps = new HashMap<>();
    private final Map<String, Integer> labels = new HashMap<>();

    private BpfAsm emit(int op, int dst, int src, int off, int imm) {
        insns.add(new long[] {op, dst, src, off, imm});
        return this;
    }

    BpfAsm movImm(int dst, int imm) { return emit(0xb7, dst, 0, 0, imm); }
    /** 32-bit move: the upper half zeroed (mov32 r, -1 is 0xffffffff). */
    BpfAsm mov32Imm(int dst, int imm) { return emit(0xb4, dst, 0, 0, imm); }
    BpfAsm mov(int dst, int src) { return emit(0xbf, dst, src, 0, 0); }
    BpfAsm addImm(int dst, int imm) { return emit(0x07, dst, 0, 0, imm); }
    BpfAsm andImm(int dst, int imm) { return emit(0x57, dst, 0, 0, imm); }
    BpfAsm subReg(int dst, int src) { return emit(0x1f, dst, src, 0, 0); }
    BpfAsm rshImm(int dst, int imm) { return emit(0x77, dst, 0, 0, imm); }
    BpfAsm ldxDw(int dst, int src, int off) { return emit(0x79, dst, src, off, 0); }
    BpfAsm ldxW(int dst, int src, int off) { return emit(0x61, dst, src, off, 0); }
    BpfAsm ldxH(int dst, int src, int off) { return emit(0x69, dst, src, off, 0); }
    BpfAsm ldxB(int dst, int src, int off) { return emit(0x71, dst, src, off, 0); }
    BpfAsm stxDw(int dst, int off, int src) { return emit(0x7b, dst, src, off, 0); }
    BpfAsm stxW(int dst, int off, int src) { return emit(0x63, dst, src, off, 0); }
    BpfAsm stW(int dst, int off, int imm) { return emit(0x62, dst, 0, off, imm); }
    BpfAsm call(int helper) { return emit(0x85, 0, 0, 0, helper); }
    BpfAsm exit() { return emit(0x95, 0, 0, 0, 0); }

    /**
     * *(u64 *)(rec + off) = the current task's real_parent->tgid (0 if a read fails), read with
     * bpf_probe_read_kernel at the offsets {@code p} gives; r0..r5 clobbered, {@code rec} kept
     * (a callee-saved register, r6..r9).
     */
    BpfAsm parentTgid(int rec, int off, Btf.Parent p) {
        return call(GET_CURRENT_TASK)
                .mov(R3, R0).addImm(R3, p.realParent())
                .mov(R1, rec).addImm(R1, off).movImm(R2, 8).call(PROBE_READ_KERNEL)
                .ldxDw(R3, rec, off).addImm(R3, p.tgid())
                .mov(R1, rec).addImm(R1, off).movImm(R2, 4).call(PROBE_READ_KERNEL)
                .stW(rec, off + 4, 0);
    }

    /**
     * {@code size} bytes at {@code rec + off} = those at the current task + {@code member}, read
     * with bpf_probe_read_kernel (zeros if the read fails); r0..r5 clobbered, {@code rec} kept.
     */
    BpfAsm taskRead(int rec, int off, int member, int size) {
        return call(GET_CURRENT_TASK)
                .mov(R3, R0).addImm(R3, member)
                .mov(R1, rec).addImm(R1, off).movImm(R2, size).call(PROBE_READ_KERNEL);
    }

    /**
     * {@code size} bytes at {@code rec + off} = those at {@code member} of the struct the current
     * task's pointer at {@code pointer} points to (task->cred->euid), the pointer read through the
     * stack at -8; r0..r5 clobbered, {@code rec} kept.
     */
    BpfAsm taskDeref(int rec, int off, int pointer, int member, int size) {
        return call(GET_CURRENT_TASK)
                .mov(R3, R0).addImm(R3, pointer)
                .mov(R1, R10).addImm(R1, -8).movImm(R2, 8).call(PROBE_READ_KERNEL)
                .ldxDw(R3, R10, -8).addImm(R3, member)
                .mov(R1, rec).addImm(R1, off).movImm(R2, size).call(PROBE_READ_KERNEL);
    }

    /**
     * map[tgid] = the current task's real_parent->tgid in map {@code mapFd} (the ppid map of
     * CaptureProgram.ppids and ProfileSampler's filter: u32 tgid -> u64 ppid), {@code tgid} a
     * register holding the current process's id (stored first). Uses the stack at -16..-1; r0..r5
     * clobbered.
     */
    BpfAsm recordParent(int tgid, int mapFd, Btf.Parent p) {
        return stxW(R10, -16, tgid)
                .parentTgid(R10, -8, p)
                .ldMap(R1, mapFd)
                .mov(R2, R10).addImm(R2, -16)
                .mov(R3, R10).addImm(R3, -8)
                .movImm(R4, 0) // BPF_ANY
                .call(MAP_UPDATE_ELEM);
    }

    /**
     * The pid filter of a map value: the u32 at {@code value + off} is 0 for every process, else
     * the one process's pid + 1; jumps to {@code drop} when {@code pidTgid} (bpf_get_current_pid_tgid's
     * value) is another process's. r1, r2 clobbered. Once per program (its label is fixed).
     */
    BpfAsm pidFilter(int value, int off, int pidTgid, String drop) {
        return ldxW(R1, value, off)
                .jeqImm(R1, 0, "pidfilter_any")
                .addImm(R1, -1)
                .mov(R2, pidTgid)
                .rshImm(R2, 32)
                .jneReg(R1, R2, drop)
                .label("pidfilter_any");
    }

    /**
     * A copy of the top of the user stack for an unwinder (ustack()): whole pages from the page of
     * the user sp at {@code rec + spOff} up into {@code rec + data + k * PAGE}, one
     * bpf_probe_read_user a page, up to the page count {@code pagesIntoR1} loads into r1 (at most
     * {@code maxPages}) or to the first page that cannot be read (the end of the stack's mapping:
     * perf's PERF_SAMPLE_STACK_USER stops there too). The first page's address goes to
     * {@code rec + addrOff}, the bytes copied (a multiple of PAGE, 0 when none) to
     * {@code rec + lenOff}. The uprobe and the syscall programs' copy. r0..r5 clobbered,
     * {@code rec} kept; {@code tag} makes its labels unique in the program.
     */
    BpfAsm userPages(int rec, int spOff, int addrOff, int lenOff, int data, int maxPages,
            java.util.function.Consumer<BpfAsm> pagesIntoR1, String tag) {
        String done = "pages_done" + tag;
        movImm(R1, 0).stxDw(rec, lenOff, R1)
                .ldxDw(R1, rec, spOff)
                .andImm(R1, -PAGE)
                .stxDw(rec, addrOff, R1);
        for (int k = 0; k < maxPages; k++) {
            pagesIntoR1.accept(this);
            jleImm(R1, k, done)
                    .mov(R1, rec)
                    .addImm(R1, data + k * PAGE)
                    .movImm(R2, PAGE)
                    .ldxDw(R3, rec, addrOff)
                    .addImm(R3, k * PAGE)
                    .call(PROBE_READ_USER)
                    .jneImm(R0, 0, done)
                    .movImm(R1, (k + 1) * PAGE)
                    .stxDw(rec, lenOff, R1);
        }
        return label(done);
    }

    /** The ISA's user register frame (Abi.kernelRegsWords) and its sp word: what a user stack section holds (userStack). */
    record UserRegs(int words, int spWord) {

        /** The frame of {@code abi}, null when it has none (no stack capture). */
        static UserRegs of(org.jdtrace.isa.Abi abi) {
            return abi.kernelRegsWords() <= 0 || abi.kernelRegsSpWord() < 0 ? null
                    : new UserRegs(abi.kernelRegsWords(), abi.kernelRegsSpWord());
        }
    }

    /** A user stack section's fields (userStack): the copy's address, its length, the registers, then the copy. */
    static final int SECTION_ADDR = 0, SECTION_LEN = 8, SECTION_REGS = 16;

    /**
     * A user stack section at {@code rec + at} for an unwinder (ustack()) of the current thread,
     * when the page count {@code pagesIntoR1} loads into r1 is not 0 (else nothing is written):
     * its user registers (struct pt_regs as its last entry into the kernel saved them, through
     * bpf_get_current_task_btf and bpf_task_pt_regs; {@code words} words), then userPages from
     * the sp in them. The syscall and the proc/sched capture programs' section. r0..r5 clobbered.
     */
    BpfAsm userStack(int rec, int at, int words, int spWord, int maxPages, java.util.function.Consumer<BpfAsm> pagesIntoR1,
            String tag) {
        pagesIntoR1.accept(this);
        return jeqImm(R1, 0, "nostack" + tag)
                .call(GET_CURRENT_TASK_BTF)
                .mov(R1, R0)
                .call(TASK_PT_REGS)
                .mov(R3, R0)
                .mov(R1, rec).addImm(R1, at + SECTION_REGS).movImm(R2, 8 * words)
                .call(PROBE_READ_KERNEL)
                .userPages(rec, at + SECTION_REGS + 8 * spWord, at + SECTION_ADDR, at + SECTION_LEN, at + SECTION_REGS + 8 * words,
                        maxPages, pagesIntoR1, tag)
                .label("nostack" + tag);
    }

    /** r0 = the address of key 0's value in map {@code mapFd} (or 0); r1..r5 clobbered. */
    BpfAsm lookupKey0(int mapFd) {
        return stW(R10, -4, 0).ldMap(R1, mapFd).mov(R2, R10).addImm(R2, -4).call(MAP_LOOKUP_ELEM);
    }

    /** The current task's comm (16 bytes) at {@code rec + off}; r0..r5 clobbered, {@code rec} kept. */
    BpfAsm comm(int rec, int off) {
        return mov(R1, rec).addImm(R1, off).movImm(R2, 16).call(GET_CURRENT_COMM);
    }

    /** r0 = the address of the value of the u32 key in register {@code key} in map {@code mapFd} (or 0); r1..r5 clobbered, the stack at -4. */
    BpfAsm lookupKey(int mapFd, int key) {
        return stxW(R10, -4, key).ldMap(R1, mapFd).mov(R2, R10).addImm(R2, -4).call(MAP_LOOKUP_ELEM);
    }

    BpfAsm ldMap(int dst, int mapFd) {
        emit(0x18, dst, 1 /* BPF_PSEUDO_MAP_FD */, 0, mapFd);
        return emit(0, 0, 0, 0, 0);
    }

    private BpfAsm jump(int op, int dst, int src, int imm, String label) {
        jumps.put(insns.size(), label);
        return emit(op, dst, src, 0, imm);
    }

    /** Any instruction (ClauseProgram's ALU and loads): opcode, registers, offset, immediate. */
    BpfAsm insn(int op, int dst, int src, int off, int imm) { return emit(op, dst, src, off, imm); }
    /** Any conditional jump to a label: opcode (BPF_JMP | op | BPF_K or BPF_X). */
    BpfAsm jmp(int op, int dst, int src, int imm, String label) { return jump(op, dst, src, imm, label); }
    /** dst = a 64-bit constant (ld_imm64, two slots). */
    BpfAsm ldImm64(int dst, long v) {
        emit(0x18, dst, 0, 0, (int) v);
        return emit(0, 0, 0, 0, (int) (v >>> 32));
    }

    BpfAsm ja(String label) { return jump(0x05, 0, 0, 0, label); }
    BpfAsm jeqImm(int dst, int imm, String label) { return jump(0x15, dst, 0, imm, label); }
    BpfAsm jneImm(int dst, int imm, String label) { return jump(0x55, dst, 0, imm, label); }
    BpfAsm jneReg(int dst, int src, String label) { return jump(0x5d, dst, src, 0, label); }
    BpfAsm jgtImm(int dst, int imm, String label) { return jump(0x25, dst, 0, imm, label); }
    BpfAsm jleImm(int dst, int imm, String label) { return jump(0xb5, dst, 0, imm, label); }
    BpfAsm jsetImm(int dst, int imm, String label) { return jump(0x45, dst, 0, imm, label); }

    BpfAsm label(String name) {
        if (labels.putIfAbsent(name, insns.size()) != null) throw new IllegalArgumentException("label " + name + " twice");
        return this;
    }

    /** The kernel's limit of distinct maps one program may name (MAX_USED_MAPS in bpf_verifier.h). */
    static final int MAX_MAPS = 64;

    /** The distinct map descriptors {@code code} names (ld_imm64 of BPF_PSEUDO_MAP_FD or _VALUE). */
    static int mapsNamed(long[] code) {
        java.util.Set<Integer> fds = new java.util.HashSet<>();
        for (int i = 0; i < code.length; i++) {
            if ((code[i] & 0xff) != 0x18) continue;
            int src = (int) (code[i] >> 12) & 0xf;
            if (src == 1 || src == 2) fds.add((int) (code[i] >>> 32));
            i++; // the second slot of ld_imm64
        }
        return fds.size();
    }

    /**
     * IllegalArgumentException (a program too big for BPF) when {@code code} names more maps than
     * the kernel lets a program use: checked before loading, as the verifier's own refusal (E2BIG,
     * before any instruction is processed) does not say why.
     */
    static void checkMaps(long[] code) {
        int n = mapsNamed(code);
        if (n > MAX_MAPS) {
            throw new IllegalArgumentException("it names " + n + " maps, past the kernel's limit of " + MAX_MAPS + " maps a program");
        }
    }

    long[] code() {
        long[] out = new long[insns.size()];
        for (int i = 0; i < out.length; i++) {
            long[] in = insns.get(i);
            long off = in[3];
            String target = jumps.get(i);
            if (target != null) {
                Integer at = labels.get(target);
                if (at == null) throw new IllegalArgumentException("no label " + target);
                off = at - i - 1;
                if (off != (short) off) throw new IllegalArgumentException("jump to " + target + " too far (" + off + " instructions)");
            }
            out[i] = (in[0] & 0xff) | ((in[1] & 0xf) << 8) | ((in[2] & 0xf) << 12) | ((off & 0xffff) << 16)
                    | ((in[4] & 0xffffffffL) << 32);
        }
        return out;
    }
}
