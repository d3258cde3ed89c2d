/**
 * Call-frame information and the stack unwinder built on it: {@link org.jdtrace.unwind.CallFrameInfo}
 * reads an ELF object's {@code .eh_frame} (through {@code .eh_frame_hdr}'s search table) and
 * {@code .debug_frame}; {@link org.jdtrace.unwind.Unwinder} walks a thread's frames from its
 * registers (DWARF-numbered, as the ISA's Abi gives them) and a memory reader (a stopped
 * process's memory, or a copy of the top of its stack). Machine facts (register numbers) come
 * from the ISA through {@link org.jdtrace.unwind.RegisterNumbering}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package org.jdtrace.unwind;
