package org.jdtrace.fasttrap;

import java.nio.file.Path;

import org.jdtrace.elf.ElfFile;
import org.osgi.annotation.versioning.ProviderType;

/** An ELF object mapped into a followed process: add {@link #bias()} to a file address. */
@ProviderType
public interface TargetObject {

    Path path();

    /** The pid provider's module name: {@code a.out} for the executable, else the file name. */
    String module();

    boolean executable();

    long bias();

    /** [start, end): the process addresses the object's mappings span. */
    long start();

    long end();

    /** The object's file, open while the object is mapped; do not close it. */
    ElfFile elf();
}
