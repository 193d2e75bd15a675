package dev.baton.examples.docs;

import dev.baton.StateMachine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Keeps the user guide's code in step with compiled code. In the Markdown pages under {@code docs/src/}:
 *
 * <ul>
 *   <li>a block between {@code <!-- snippet: NAME -->} and {@code <!-- /snippet -->} is the region of the example
 *       sources between {@code // tag::NAME[]} and {@code // end::NAME[]}, dedented, in a {@code java} fence;
 *   <li>a block between {@code <!-- diagram: CLASS -->} and {@code <!-- /diagram -->} is the Mermaid diagram of the
 *       {@code MACHINE} field of that class ({@link StateMachine#toMermaid()}), in a {@code mermaid} fence;
 *   <li>a block between {@code <!-- schema: FILE TABLE -->} and {@code <!-- /schema -->} is the {@code CREATE TABLE}
 *       statement of that table and its {@code CREATE INDEX} lines, from the example schema file {@code FILE}
 *       ({@code postgres.sql} or {@code mariadb.sql}), in a {@code sql} fence.
 * </ul>
 *
 * <p>Run from the repository root to rewrite the pages: {@code java -cp examples/target/baton-demo.jar
 * dev.baton.examples.docs.DocsGenerator}. {@code DocsTest} fails when a page is not what this would write.
 */
public final class DocsGenerator {
    private static final Pattern TAG = Pattern.compile("^\\s*// tag::([A-Za-z0-9_-]+)\\[\\]\\s*$");
    private static final Pattern END = Pattern.compile("^\\s*// end::([A-Za-z0-9_-]+)\\[\\]\\s*$");
    private static final Pattern BLOCK = Pattern.compile(
            "(<!-- (snippet|diagram|schema): ([A-Za-z0-9_.$ -]+) -->\\n)(.*?)(<!-- /\\2 -->)", Pattern.DOTALL);

    /** The directories, relative to the repository root, whose Java sources hold the guide's tagged regions. */
    public static final List<String> SOURCE_ROOTS = List.of("examples/src", "examples-spring-boot/src");

    private final Path root;
    private final Map<String, String> regions;

    /** A generator for the repository at {@code root} (the directory holding {@code examples/} and {@code docs/}). */
    public DocsGenerator(Path root) {
        this.root = root;
        this.regions = regions(SOURCE_ROOTS.stream()
                .map(root::resolve)
                .filter(Files::isDirectory)
                .toList());
    }

    /** Rewrites every page under {@code docs/src} whose generated blocks are stale. */
    public static void main(String[] args) throws IOException {
        Path root = Paths.get(args.length > 0 ? args[0] : ".").toAbsolutePath().normalize();
        DocsGenerator g = new DocsGenerator(root);
        for (Path page : g.pages()) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            String generated = g.generate(text, page);
            if (!generated.equals(text)) {
                Files.writeString(page, generated, StandardCharsets.UTF_8);
                System.out.println("updated " + root.relativize(page));
            }
        }
    }

    /** The Markdown pages of the guide. */
    public List<Path> pages() {
        try (Stream<Path> files = Files.walk(root.resolve("docs/src"))) {
            return files.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The tagged regions of the example sources, by name. */
    public Map<String, String> regions() {
        return regions;
    }

    /**
     * A page with every generated block rewritten.
     *
     * @throws IllegalArgumentException naming the page and the block, for an unknown snippet or class
     */
    public String generate(String page, Path name) {
        Matcher m = BLOCK.matcher(page);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String kind = m.group(2);
            String ref = m.group(3);
            String body;
            if (kind.equals("snippet")) {
                String region = regions.get(ref);
                if (region == null) {
                    throw new IllegalArgumentException(name + ": no source region tagged " + ref);
                }
                body = "```java\n" + region + "```\n";
            } else if (kind.equals("diagram")) {
                body = "```mermaid\n" + machine(ref).toMermaid() + "```\n";
            } else {
                String[] fileAndTable = ref.split(" ");
                body = "```sql\n" + table(fileAndTable[0], fileAndTable[1], name) + "```\n";
            }
            m.appendReplacement(out, Matcher.quoteReplacement(m.group(1) + body + m.group(5)));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** A table's DDL from an example schema file, comments kept. */
    private String table(String file, String table, Path page) {
        List<String> lines;
        try {
            lines = Files.readAllLines(
                    root.resolve("examples/src/main/resources/dev/baton/examples/schema")
                            .resolve(file),
                    StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalArgumentException(page + ": no schema file " + file, e);
        }
        StringBuilder sb = new StringBuilder();
        boolean inTable = false;
        for (String line : lines) {
            if (line.startsWith("CREATE TABLE " + table + " (")) {
                inTable = true;
            }
            if (inTable || (line.matches("^CREATE (UNIQUE )?INDEX \\w+ ON " + table + " .*"))) {
                sb.append(line).append('\n');
            }
            if (inTable && line.startsWith(")")) {
                inTable = false;
            }
        }
        if (sb.length() == 0) {
            throw new IllegalArgumentException(page + ": no table " + table + " in " + file);
        }
        return sb.toString();
    }

    /** The {@code MACHINE} field of a class. */
    static StateMachine<?> machine(String className) {
        try {
            Field f = Class.forName(className).getField("MACHINE");
            return (StateMachine<?>) f.get(null);
        } catch (ReflectiveOperationException | ClassCastException e) {
            throw new IllegalArgumentException("no public static StateMachine MACHINE in " + className, e);
        }
    }

    private static Map<String, String> regions(List<Path> sourceRoots) {
        Map<String, String> out = new LinkedHashMap<>();
        List<Path> files = new ArrayList<>();
        for (Path sources : sourceRoots) {
            try (Stream<Path> walk = Files.walk(sources)) {
                files.addAll(walk.filter(p -> p.toString().endsWith(".java"))
                        .sorted()
                        .toList());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        for (Path file : files) {
            List<String> lines;
            try {
                lines = Files.readAllLines(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Map<String, List<String>> open = new LinkedHashMap<>();
            for (String line : lines) {
                Matcher tag = TAG.matcher(line);
                Matcher end = END.matcher(line);
                if (tag.matches()) {
                    if (out.containsKey(tag.group(1)) || open.containsKey(tag.group(1))) {
                        throw new IllegalStateException("region " + tag.group(1) + " is tagged twice (" + file + ")");
                    }
                    open.put(tag.group(1), new ArrayList<>());
                } else if (end.matches()) {
                    List<String> region = open.remove(end.group(1));
                    if (region == null) {
                        throw new IllegalStateException("end of untagged region " + end.group(1) + " in " + file);
                    }
                    out.put(end.group(1), dedent(region));
                } else {
                    open.values().forEach(r -> r.add(line));
                }
            }
            if (!open.isEmpty()) {
                throw new IllegalStateException("regions " + open.keySet() + " are not ended in " + file);
            }
        }
        return out;
    }

    private static String dedent(List<String> lines) {
        int indent = Integer.MAX_VALUE;
        for (String l : lines) {
            if (!l.isBlank()) {
                indent = Math.min(indent, l.length() - l.stripLeading().length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String l : lines) {
            sb.append(l.isBlank() ? "" : l.substring(indent)).append('\n');
        }
        return sb.toString();
    }
}
