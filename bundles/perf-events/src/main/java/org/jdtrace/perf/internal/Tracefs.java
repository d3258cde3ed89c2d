/*
 * tracefs: the kernel's tracepoint ids and record formats (events/<category>/<name>/{id,format}).
 * A fresh machine does not mount it; the first lookup mounts it at /sys/kernel/tracing with
 * mount(8) (as perf does, and left mounted, as perf leaves it). A tracepoint the kernel lacks is a
 * PerfException worded for dtrace: "tracepoint sched:foo does not exist".
 */
package org.jdtrace.perf.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jdtrace.perf.PerfException;
import org.jdtrace.perf.KernelTracepoint;

final class Tracefs {

    private static final Path[] ROOTS = {Path.of("/sys/kernel/tracing"), Path.of("/sys/kernel/debug/tracing")};
    private static final Pattern FIELD = Pattern.compile(
            "field:(.+?);\\s*offset:(\\d+);\\s*size:(\\d+);\\s*signed:(\\d+);");

    private final Map<String, KernelTracepoint> cache = new ConcurrentHashMap<>();
    private volatile Path root;

    KernelTracepoint tracepoint(String category, String name) {
        return cache.computeIfAbsent(category + ":" + name, k -> read(category, name));
    }

    private KernelTracepoint read(String category, String name) {
        Path dir = root().resolve("events").resolve(category).resolve(name);
        try {
            int id = Integer.parseInt(org.jdtrace.proc.Procfs.read(dir.resolve("id")).strip());
            Map<String, int[]> fields = new LinkedHashMap<>();
            Map<String, String> types = new LinkedHashMap<>();
            Matcher m = FIELD.matcher(org.jdtrace.proc.Procfs.read(dir.resolve("format")));
            while (m.find()) {
                String decl = m.group(1).strip();
                String field = decl.replaceAll("\\[.*\\]$", "");
                String type = field.substring(0, field.lastIndexOf(' ') + 1).strip();
                field = field.substring(field.lastIndexOf(' ') + 1);
                if (field.startsWith("*")) {
                    type += " *";
                    field = field.replace("*", "");
                }
                types.put(field, type);
                fields.put(field, new int[] {Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
                        Integer.parseInt(m.group(4))});
            }
            return new KernelTracepoint(category, name, id, fields, types);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new PerfException("tracepoint " + category + ":" + name + " does not exist", 2);
        } catch (java.nio.file.AccessDeniedException e) {
            throw new PerfException("tracepoint " + category + ":" + name + ": Permission denied", 13);
        } catch (IOException | NumberFormatException e) {
            throw new PerfException("tracepoint " + category + ":" + name + ": " + e.getMessage(), 0);
        }
    }

    private synchronized Path root() {
        if (root != null) return root;
        for (Path p : ROOTS) {
            if (Files.isDirectory(p.resolve("events"))) return root = p;
        }
        try {
            Process p = new ProcessBuilder("mount", "-t", "tracefs", "nodev", ROOTS[0].toString())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes()).strip();
            if (p.waitFor() != 0 || !Files.isDirectory(ROOTS[0].resolve("events"))) {
                throw new PerfException("cannot mount tracefs at " + ROOTS[0] + (out.isEmpty() ? "" : ": " + out), 0);
            }
        } catch (IOException e) {
            throw new PerfException("cannot mount tracefs at " + ROOTS[0] + ": " + e.getMessage(), 0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PerfException("cannot mount tracefs: interrupted", 0);
        }
        return root = ROOTS[0];
    }
}
