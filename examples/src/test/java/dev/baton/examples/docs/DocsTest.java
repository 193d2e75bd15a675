package dev.baton.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No code in the guide or the README can rot: generated blocks (snippets, diagrams, DDL) are what
 * {@link DocsGenerator} writes, and every {@code java} block of every page and of README.md appears in the example
 * sources, which compile (compared with whitespace collapsed, since the formatter may wrap lines).
 */
class DocsTest {
    private static final Path ROOT = Paths.get("..").toAbsolutePath().normalize();
    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern MARKER = Pattern.compile("^\\s*// (tag|end)::[A-Za-z0-9_-]+\\[\\]\\s*$");

    @Test
    void generatedBlocksAreUpToDate() throws IOException {
        DocsGenerator generator = new DocsGenerator(ROOT);
        List<String> stale = new ArrayList<>();
        for (Path page : generator.pages()) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            if (!generator.generate(text, page).equals(text)) {
                stale.add(ROOT.relativize(page).toString());
            }
        }
        assertEquals(
                List.of(),
                stale,
                "pages out of step with the code; from the repository root run: java -cp examples/target/baton-demo.jar"
                        + " dev.baton.examples.docs.DocsGenerator");
    }

    @Test
    void everyJavaBlockOfTheGuideAndTheReadmeIsCompiledCode() throws IOException {
        String sources = normalize(allSources());
        List<Path> pages = new ArrayList<>(new DocsGenerator(ROOT).pages());
        pages.add(ROOT.resolve("README.md"));
        List<String> missing = new ArrayList<>();
        int blocks = 0;
        for (Path page : pages) {
            Matcher m = JAVA_BLOCK.matcher(Files.readString(page, StandardCharsets.UTF_8));
            while (m.find()) {
                blocks++;
                String block = normalize(m.group(1));
                if (!block.isEmpty() && !sources.contains(block)) {
                    missing.add(ROOT.relativize(page) + ":\n" + m.group(1));
                }
            }
        }
        assertTrue(blocks > 20, "found " + blocks + " java blocks");
        assertEquals(List.of(), missing, "java blocks that no example source contains");
    }

    @Test
    void theGuideHasNoEmptyJavaBlock() throws IOException {
        for (Path page : new DocsGenerator(ROOT).pages()) {
            String text = Files.readString(page, StandardCharsets.UTF_8);
            assertTrue(!text.contains("```java\n```"), page + " has an empty java block");
        }
    }

    @Test
    void layoutDoesNotMatterButTokensDo() {
        assertEquals(normalize("a.table(\"orders\").id(\"id\");"), normalize("a.table(\"orders\")\n    .id(\"id\");"));
        assertTrue(!normalize("int x = 1;").equals(normalize("int y = 1;")));
        assertTrue(!normalize("f(a, b)").equals(normalize("f(a,c)")));
    }

    /**
     * The code without layout: tag markers dropped, whitespace runs collapsed to one space, and that space dropped
     * unless it separates two word characters (so {@code .table("orders").id("id")} on one line or two is the same).
     */
    static String normalize(String code) {
        StringBuilder sb = new StringBuilder();
        for (String line : code.split("\n")) {
            if (!MARKER.matcher(line).matches()) {
                sb.append(line).append('\n');
            }
        }
        return sb.toString()
                .replaceAll("\\s+", " ")
                .replaceAll("(?<=\\W) | (?=\\W)", "")
                .trim();
    }

    private static String allSources() {
        StringBuilder sb = new StringBuilder();
        for (String root : DocsGenerator.SOURCE_ROOTS) {
            if (!Files.isDirectory(ROOT.resolve(root))) {
                continue;
            }
            try (Stream<Path> files = Files.walk(ROOT.resolve(root))) {
                for (Path p : files.filter(f -> f.toString().endsWith(".java"))
                        .sorted()
                        .toList()) {
                    sb.append(Files.readString(p, StandardCharsets.UTF_8)).append("\n\u0000\n");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return sb.toString();
    }
}
