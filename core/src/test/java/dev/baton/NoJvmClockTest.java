package dev.baton;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Leases, due times and expiry are computed by the database clock. This test fails if the library's main sources
 * read the JVM's wall clock anywhere ({@code System.nanoTime()} stays allowed: the worker uses it only to schedule its
 * own heartbeats, never to judge a lease).
 */
class NoJvmClockTest {
    private static final Pattern WALL_CLOCK = Pattern.compile(
            "System\\.currentTimeMillis|Instant\\.now|LocalDateTime\\.now|OffsetDateTime\\.now|ZonedDateTime\\.now"
                    + "|LocalDate\\.now|Clock\\.system|new java\\.util\\.Date\\(\\)|new Date\\(\\)");

    @Test
    void mainSourcesNeverReadTheWallClock() throws IOException {
        List<String> offenders = new ArrayList<>();
        Path root = Path.of("").toAbsolutePath().getParent();
        for (String module : List.of("core", "dialect-postgres", "dialect-mysql", "dialect-sqlserver")) {
            Path src = root.resolve(module).resolve("src/main/java");
            if (!Files.isDirectory(src)) {
                throw new AssertionError("missing sources: " + src);
            }
            try (Stream<Path> files = Files.walk(src)) {
                for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                    List<String> lines = Files.readAllLines(f);
                    for (int i = 0; i < lines.size(); i++) {
                        if (WALL_CLOCK.matcher(lines.get(i)).find()) {
                            offenders.add(root.relativize(f) + ":" + (i + 1) + ": "
                                    + lines.get(i).trim());
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), offenders);
    }

    @Test
    void thePatternCatchesAWallClockRead() {
        assertEquals(
                true, WALL_CLOCK.matcher("long t = System.currentTimeMillis();").find());
        assertEquals(true, WALL_CLOCK.matcher("var t = Instant.now();").find());
        assertEquals(false, WALL_CLOCK.matcher("long t = System.nanoTime();").find());
    }
}
