package dev.baton.spring.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The configuration processor writes IDE metadata for the {@code baton.*} properties into the starter's jar: every
 * main property with its type, its description from the Javadoc, and its default.
 */
class ConfigurationMetadataTest {
    /** One entry: the object's text from its name to its closing brace (alone on its line). */
    private static final Pattern ENTRY =
            Pattern.compile("\\{\\s*\"name\": \"(baton\\.[^\"]+)\"(.*?)\\n\\s*}", Pattern.DOTALL);

    @Test
    void theGeneratedMetadataListsTheMainProperties() throws Exception {
        Path classes = Path.of(BatonProperties.class
                .getProtectionDomain()
                .getCodeSource()
                .getLocation()
                .toURI());
        // the classes directory in a test run, the module's jar when the reactor has packaged it (verify)
        String json;
        if (Files.isDirectory(classes)) {
            json = Files.readString(
                    classes.resolve("META-INF/spring-configuration-metadata.json"), StandardCharsets.UTF_8);
        } else {
            try (java.util.jar.JarFile jar = new java.util.jar.JarFile(classes.toFile())) {
                java.util.jar.JarEntry entry = jar.getJarEntry("META-INF/spring-configuration-metadata.json");
                try (java.io.InputStream in = jar.getInputStream(entry)) {
                    json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
            }
        }
        Map<String, String> properties = new LinkedHashMap<>();
        Matcher m = ENTRY.matcher(json);
        while (m.find()) {
            properties.putIfAbsent(m.group(1), m.group(2));
        }
        for (String name : List.of(
                "baton.own-tables.create",
                "baton.own-tables.outbox",
                "baton.own-tables.inbox",
                "baton.own-tables.idempotency-keys",
                "baton.own-tables.rate-limits",
                "baton.workers.enabled",
                "baton.health.max-backlog-age",
                "baton.health.max-unknown",
                "baton.health.max-failed-polls",
                "baton.metrics.gauge-refresh",
                "baton.queues",
                "baton.console.csrf-key",
                "baton.console.session-lifetime",
                "baton.console.secure-cookie")) {
            String entry = properties.get(name);
            assertTrue(entry != null, name + " is missing from " + properties.keySet());
            assertTrue(entry.contains("\"description\""), name + " has no description: " + entry);
            assertTrue(!entry.contains("{@"), name + ": Javadoc tags show as they are in an IDE: " + entry);
        }
        assertTrue(properties.get("baton.own-tables.create").contains("\"defaultValue\": false"));
        assertTrue(properties.get("baton.health.max-failed-polls").contains("\"defaultValue\": 3"));
        assertTrue(properties.get("baton.metrics.gauge-refresh").contains("\"defaultValue\": \"15s\""));
        assertTrue(properties.get("baton.health.max-backlog-age").contains("\"type\": \"java.time.Duration\""));
        assertTrue(json.contains("\"management.endpoint.baton.access\""), "the endpoint's own properties");
        assertTrue(properties.get("baton.console.session-lifetime").contains("\"defaultValue\": \"12h\""));
    }
}
