package dev.baton.testservers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.testservers.TestDatabases.Outcome;
import dev.baton.testservers.TestDatabases.Unavailable;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The Docker CI workflow ({@code .github/workflows/databases.yml}) cannot run here: its syntax is checked by parsing
 * it, its matrix against the servers it must cover, and every {@code BATON_TEST_*} variable it sets against the ones
 * test-servers reads. The Testcontainers path it relies on runs here up to the missing Docker engine.
 */
class WorkflowFileTest {
    private static final Path WORKFLOW = Path.of("..", ".github", "workflows", "databases.yml");
    private static final Pattern MATRIX_REF = Pattern.compile("\\$\\{\\{\\s*matrix\\.(\\w+)\\s*}}");

    @SuppressWarnings("unchecked")
    private static Map<String, Object> workflow() throws IOException {
        try (Reader r = Files.newBufferedReader(WORKFLOW)) {
            return (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(r);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> jobs() throws IOException {
        return (Map<String, Map<String, Object>>) workflow().get("jobs");
    }

    @SuppressWarnings("unchecked")
    private static List<Object> matrix(String job, String key) throws IOException {
        Map<String, Object> strategy = (Map<String, Object>) jobs().get(job).get("strategy");
        return (List<Object>) ((Map<String, Object>) strategy.get("matrix")).get(key);
    }

    @Test
    @SuppressWarnings("unchecked")
    void theWorkflowParsesAndEveryJobHasARunnerAndSteps() throws IOException {
        Map<String, Object> w = workflow();
        // YAML 1.1 reads the key "on" as boolean true
        assertTrue(w.containsKey("on") || w.containsKey(Boolean.TRUE), "triggers");
        assertEquals("true", ((Map<String, Object>) w.get("env")).get("CI"), "CI=true: a named image must start");
        assertEquals(
                new TreeSet<>(List.of("mariadb", "mysql", "postgres", "sqlserver")), new TreeSet<>(jobs().keySet()));
        for (Map.Entry<String, Map<String, Object>> job : jobs().entrySet()) {
            Map<String, Object> j = job.getValue();
            assertEquals("ubuntu-latest", j.get("runs-on"), job.getKey());
            List<Map<String, Object>> steps = (List<Map<String, Object>>) j.get("steps");
            assertFalse(steps.isEmpty(), job.getKey());
            for (Map<String, Object> step : steps) {
                assertTrue(step.containsKey("uses") ^ step.containsKey("run"), job.getKey() + ": " + step);
                if (step.get("run") instanceof String run) {
                    checkRun(job.getKey(), run);
                }
            }
        }
    }

    /** A Maven run names modules that exist; a script run names a script that exists. */
    private static void checkRun(String job, String run) {
        Matcher module = Pattern.compile("-pl (\\S+)").matcher(run);
        while (module.find()) {
            for (String m : module.group(1).split(",")) {
                assertTrue(Files.isRegularFile(Path.of("..", m, "pom.xml")), job + ": module " + m);
            }
        }
        Matcher script = Pattern.compile("python3 (\\S+)").matcher(run);
        while (script.find()) {
            assertTrue(Files.isRegularFile(Path.of("..", script.group(1))), job + ": script " + script.group(1));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void everyVariableItSetsIsOneTestServersReadsAndEveryMatrixReferenceExists() throws IOException {
        List<String> used = new ArrayList<>();
        for (Map.Entry<String, Map<String, Object>> job : jobs().entrySet()) {
            Map<String, Object> env = (Map<String, Object>) job.getValue().getOrDefault("env", Map.of());
            Map<String, Object> strategy = (Map<String, Object>) job.getValue().get("strategy");
            Map<String, Object> matrix = (Map<String, Object>) strategy.get("matrix");
            for (Map.Entry<String, Object> e : env.entrySet()) {
                if (e.getKey().startsWith("BATON_TEST_")) {
                    assertTrue(
                            TestDatabases.CONTAINER_VARIABLES.contains(e.getKey()),
                            job.getKey() + ": " + e.getKey() + " is not read by test-servers");
                    used.add(e.getKey());
                }
                Matcher ref = MATRIX_REF.matcher(String.valueOf(e.getValue()));
                while (ref.find()) {
                    assertTrue(matrix.containsKey(ref.group(1)), job.getKey() + ": matrix." + ref.group(1));
                }
            }
        }
        assertEquals(new TreeSet<>(TestDatabases.CONTAINER_VARIABLES), new TreeSet<>(used), "each variable is used");
    }

    @Test
    void theMatrixCoversTheServersTheIssueNames() throws IOException {
        assertEquals(
                List.of("mcr.microsoft.com/mssql/server:2019-latest", "mcr.microsoft.com/mssql/server:2022-latest"),
                matrix("sqlserver", "image"));
        assertEquals(List.of("on", "off"), matrix("sqlserver", "rcsi"));
        assertEquals(List.of("mysql:8.0", "mysql:8.4", "mysql:9"), matrix("mysql", "image"));
        List<Object> postgres = new ArrayList<>();
        for (int v = 12; v <= 18; v++) {
            postgres.add("postgres:" + v);
        }
        assertEquals(postgres, matrix("postgres", "image"));
        assertEquals(
                List.of("mariadb:10.6", "mariadb:10.11", "mariadb:11.4", "mariadb:11.8"), matrix("mariadb", "image"));
    }

    private static Function<String, String> env(String... pairs) {
        Map<String, String> map = new HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map::get;
    }

    /**
     * Each container the workflow names goes through Testcontainers up to the Docker engine, which this machine lacks:
     * outside CI a skip naming the image and the missing engine, with {@code CI=true} a failure.
     */
    @Test
    void withoutDockerEachNamedImageSkipsNamingTheMissingEngineAndFailsInCi() {
        Assumptions.assumeFalse(
                TestDatabases.dockerConfigured(env()), "a Docker engine is configured here: the workflow's case");
        List<Function<Function<String, String>, Outcome>> factories = List.of(
                TestDatabases::sqlServer,
                TestDatabases::mysql,
                TestDatabases::postgresLocal,
                TestDatabases::mariadbLocal);
        List<String[]> settings = List.of(
                new String[] {"BATON_TEST_SQLSERVER_IMAGE", "mcr.microsoft.com/mssql/server:2019-latest"},
                new String[] {"BATON_TEST_MYSQL8_IMAGE", "mysql:8.4"},
                new String[] {"BATON_TEST_POSTGRES_IMAGE", "postgres:12"},
                new String[] {"BATON_TEST_MARIADB_IMAGE", "mariadb:10.6"});
        for (int i = 0; i < factories.size(); i++) {
            String[] s = settings.get(i);
            Unavailable skip =
                    assertInstanceOf(Unavailable.class, factories.get(i).apply(env(s[0], s[1])));
            assertFalse(skip.failure(), skip.reason());
            assertTrue(skip.reason().contains(s[1]) && skip.reason().contains("no Docker engine"), skip.reason());
            Unavailable fail =
                    assertInstanceOf(Unavailable.class, factories.get(i).apply(env(s[0], s[1], "CI", "true")));
            assertTrue(fail.failure(), fail.reason());
        }
        Unavailable rcsi =
                assertInstanceOf(Unavailable.class, TestDatabases.sqlServer(env("BATON_TEST_SQLSERVER_RCSI", "maybe")));
        assertTrue(rcsi.failure() && rcsi.reason().contains("on or off"), rcsi.reason());
        Unavailable on =
                assertInstanceOf(Unavailable.class, TestDatabases.sqlServer(env("BATON_TEST_SQLSERVER_RCSI", "on")));
        assertTrue(on.reason().contains("READ_COMMITTED_SNAPSHOT ON"), on.reason());
    }

    @Test
    void theSqlServerDatabaseIsCreatedWithReadCommittedSnapshotAsAsked() {
        assertEquals(
                List.of(
                        "CREATE DATABASE [baton_test]",
                        "ALTER DATABASE [baton_test] SET READ_COMMITTED_SNAPSHOT ON WITH ROLLBACK IMMEDIATE"),
                TestcontainersSupport.sqlServerSetup(true));
        assertTrue(TestcontainersSupport.sqlServerSetup(false).get(1).contains("READ_COMMITTED_SNAPSHOT OFF"));
    }
}
