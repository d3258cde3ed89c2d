package org.jdtrace.provider.fasttrap.internal.proc;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;

import org.jdtrace.isa.IsaException;
import org.jdtrace.isa.Memory;
import org.jdtrace.provider.fasttrap.internal.sys.Sys;

/*
 * A traced process's address space.
 *
 * Reads and data writes use process_vm_readv/writev (one system call, no fd, any thread; they
 * respect page protections). Text writes (planting and removing int3, and any write
 * process_vm_writev refuses) go through /proc/PID/mem, which writes like ptrace POKEDATA
 * (FOLL_FORCE: copy-on-write into read-only private mappings) but from any thread and
 * whether or not the tracee is stopped: so probes can be enabled while the process runs and
 * without waking the control thread. A one-byte int3 store over an instruction's first byte is
 * the safe way to patch code another CPU may be running (the kernel's text_poke does the same).
 *
 * The /proc/PID/mem channel is bound to the address space that existed when it was opened:
 * after an exec it fails, and reopen() binds it to the new image.
 */
public final class ProcessMemory implements Memory {

    private final int pid;
    private volatile FileChannel mem;

    ProcessMemory(int pid) {
        this.pid = pid;
        reopen();
    }

    synchronized void reopen() {
        close();
        try {
            mem = FileChannel.open(org.jdtrace.proc.Procfs.file(pid, "mem"),
                    StandardOpenOption.READ, StandardOpenOption.WRITE);
        } catch (IOException e) {
            mem = null;
        }
    }

    synchronized void close() {
        if (mem != null) {
            try {
                mem.close();
            } catch (IOException ignored) {
                // nothing to do
            }
            mem = null;
        }
    }

    public int pid() {
        return pid;
    }

    @Override
    public void read(long addr, byte[] buf, int off, int len) throws IsaException {
        if (len == 0) return;
        int n = Sys.current().readMemory(pid, addr, buf, off, len);
        if (n == len) return;
        // process_vm_readv stops at an unreadable page; /proc/PID/mem reads what ptrace can
        if (readProc(addr + n, buf, off + n, len - n) != len - n) {
            throw new IsaException("cannot read " + len + " bytes at 0x" + Long.toHexString(addr), addr);
        }
    }

    /** Reads as many bytes as are readable, up to len; returns the count. */
    @Override
    public int readSome(long addr, byte[] buf, int off, int len) {
        int n = Sys.current().readMemory(pid, addr, buf, off, len);
        if (n == len) return n;
        return n + Math.max(0, readProc(addr + n, buf, off + n, len - n));
    }

    private int readProc(long addr, byte[] buf, int off, int len) {
        FileChannel ch = mem;
        if (ch == null || addr < 0) return -1;
        try {
            ByteBuffer bb = ByteBuffer.wrap(buf, off, len);
            int total = 0;
            while (bb.hasRemaining()) {
                int r = ch.read(bb, addr + total);
                if (r <= 0) break;
                total += r;
            }
            return total;
        } catch (IOException e) {
            return -1;
        }
    }

    @Override
    public void write(long addr, byte[] buf, int off, int len) throws IsaException {
        if (len == 0) return;
        int n = Sys.current().writeMemory(pid, addr, buf, off, len);
        if (n == len) return;
        if (!writeText(addr + n, buf, off + n, len - n)) {
            throw new IsaException("cannot write " + len + " bytes at 0x" + Long.toHexString(addr), addr);
        }
    }

    /** Writes through /proc/PID/mem (text included); false on failure. */
    public boolean writeText(long addr, byte[] buf, int off, int len) {
        FileChannel ch = mem;
        if (ch == null || addr < 0) return false;
        try {
            ByteBuffer bb = ByteBuffer.wrap(buf, off, len);
            int total = 0;
            while (bb.hasRemaining()) {
                int w = ch.write(bb, addr + total);
                if (w <= 0) return false;
                total += w;
            }
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    public boolean writeText(long addr, byte[] buf) {
        return writeText(addr, buf, 0, buf.length);
    }

    /** Reads a NUL-terminated string of at most max bytes; null if the first byte is unreadable. */
    public String readString(long addr, int max) {
        byte[] b = new byte[Math.min(max, 256)];
        StringBuilder sb = new StringBuilder();
        byte[] all = new byte[0];
        int total = 0;
        while (total < max) {
            int want = Math.min(b.length, max - total);
            // do not cross a page boundary in one read so a short read means the real end
            long pageLeft = 4096 - ((addr + total) & 4095);
            want = (int) Math.min(want, pageLeft);
            int n = readSome(addr + total, b, 0, want);
            if (n <= 0) {
                if (total == 0) return null;
                break;
            }
            for (int i = 0; i < n; i++) {
                if (b[i] == 0) {
                    all = append(all, total, b, i);
                    return new String(all, 0, total + i, java.nio.charset.StandardCharsets.UTF_8);
                }
            }
            all = append(all, total, b, n);
            total += n;
            if (n < want) break;
        }
        sb.append(new String(all, 0, total, java.nio.charset.StandardCharsets.UTF_8));
        return sb.toString();
    }

    private static byte[] append(byte[] all, int used, byte[] b, int n) {
        byte[] r = all.length >= used + n ? all : java.util.Arrays.copyOf(all, Math.max(used + n, all.length * 2));
        System.arraycopy(b, 0, r, used, n);
        return r;
    }
}
