package dev.baton.examples.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.Baton;
import dev.baton.postgres.PostgresDialect;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import dev.baton.testservers.TestServer;
import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.postgresql.Driver;
import org.slf4j.LoggerFactory;
import org.slf4j.simple.SimpleLogger;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/**
 * The README's quick start as a new project, from the README's own blocks. Its {@code pom.xml} must be
 * well-formed and declare exactly the artifacts and versions this build uses, as a user of the release writes them
 * (the BOM imported at the release this build makes, the project's version without {@code -SNAPSHOT}; the Baton
 * modules without a version, the BOM's; the driver and the SLF4J backend at the parent pom's versions) and a compiler
 * release; its
 * {@code QuickStart.java} is compiled at that release (Maven's default, Java 8, when the pom names none) against
 * those artifacts alone; the table is made from its PostgreSQL DDL in a new database; and the class runs twice in a
 * new JVM, as the README's {@code java -cp} line runs it, printing what the README shows both times (the log lines
 * included). The artifacts are the reactor's (the test class path), so nothing needs {@code mvn install}.
 */
class QuickStartProjectTest {
    private static final Path ROOT = Paths.get("..").toAbsolutePath().normalize();

    @Test
    void theReadmePomDeclaresTheBuildsArtifactsAndVersionsAndAJavaRelease() throws Exception {
        Element parent = xml(Files.readString(ROOT.resolve("pom.xml"), StandardCharsets.UTF_8));
        Element pom = readmePom();
        String version = text(parent, "version");
        String release = version.replace("-SNAPSHOT", "");
        Element parentProperties = child(parent, "properties");
        Element management = child(pom, "dependencyManagement");
        assertTrue(management != null, "the README's pom.xml imports the BOM in <dependencyManagement>");
        assertEquals(
                List.of("dev.baton:baton-bom:" + release + ":import:pom"),
                dependencies(management),
                "the README's pom.xml imports the BOM of the release this build makes, as a user of the release writes it");
        assertEquals(
                List.of(
                        "dev.baton:baton-core:(managed):compile",
                        "dev.baton:baton-postgres:(managed):compile",
                        "org.postgresql:postgresql:" + text(parentProperties, "postgresql.version") + ":compile",
                        "org.slf4j:slf4j-simple:" + text(parentProperties, "slf4j.version") + ":runtime"),
                dependencies(pom),
                "the README's pom.xml: groupId:artifactId:version:scope of each dependency");
        assertEquals(
                text(parentProperties, "maven.compiler.release"),
                text(child(pom, "properties"), "maven.compiler.release"),
                "the README's pom.xml sets the release Baton is built for (Maven's compiler defaults to Java 8)");
        String mariadb = "org.mariadb.jdbc:mariadb-java-client " + text(parentProperties, "mariadb.version");
        assertTrue(
                QuickStartTest.quickStartBlocks("xml").get(0).contains(mariadb),
                "the README's pom.xml names the MariaDB driver the build uses: " + mariadb);
        assertEquals(
                List.of(
                        "postgresql-" + text(parentProperties, "postgresql.version") + ".jar",
                        "slf4j-simple-" + text(parentProperties, "slf4j.version") + ".jar"),
                List.of(
                        location(Driver.class).getFileName().toString(),
                        location(SimpleLogger.class).getFileName().toString()),
                "the test runs the README's program on the artifacts its pom names");
    }

    @ParameterizedTest
    @EnumSource(
            value = TestServer.class,
            names = {"POSTGRES_LOCAL", "POSTGRES_EMBEDDED"})
    void theReadmeProjectCompilesAndRunsTwiceOnANewDatabasePrintingWhatTheReadmeShows(
            TestServer server, @TempDir Path project) throws Exception {
        TestDatabase db = server.get();
        Path classes = compile(project);
        String name = TestDatabases.uniqueName("quick_start_project");
        db.execute("CREATE DATABASE " + name);
        try {
            String url = withDatabase(db.jdbcUrl(), name);
            String password = db.password() == null ? "" : db.password();
            try (Connection c = DriverManager.getConnection(url, db.user(), password);
                    Statement s = c.createStatement()) {
                for (String statement : QuickStartTest.statements(QuickStartTest.ddl("-- PostgreSQL"))) {
                    s.execute(statement);
                }
            }
            String expected = readmeOutput();
            for (int run = 1; run <= 2; run++) {
                assertEquals(
                        expected,
                        runQuickStart(project, classes, url, db.user(), password),
                        "run " + run + " of the README's QuickStart (standard error, then standard output)");
            }
        } finally {
            db.execute("DROP DATABASE " + name);
        }
    }

    /** Writes the README's QuickStart.java where Maven keeps it and compiles it as the README's pom would. */
    private static Path compile(Path project) throws IOException, URISyntaxException {
        Path source = project.resolve("src/main/java/QuickStart.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, QuickStartTest.quickStartBlocks("java").get(0), StandardCharsets.UTF_8);
        Path classes = Files.createDirectories(project.resolve("target/classes"));
        Element properties = child(readmePom(), "properties");
        String release = properties == null ? null : text(properties, "maven.compiler.release");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StringWriter out = new StringWriter();
        try (StandardJavaFileManager files = javac.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            boolean compiled = javac.getTask(
                            out,
                            files,
                            diagnostics,
                            List.of(
                                    "--release",
                                    release == null ? "8" : release,
                                    "-encoding",
                                    "UTF-8",
                                    "-proc:none",
                                    "-d",
                                    classes.toString(),
                                    "-classpath",
                                    classPath(compileClassPath())),
                            null,
                            files.getJavaFileObjects(source.toFile()))
                    .call();
            assertTrue(
                    compiled,
                    "the README's QuickStart.java does not compile with its pom (release " + release + "): " + out
                            + diagnostics.getDiagnostics().stream()
                                    .map(d -> "\n" + d.getKind() + " line " + d.getLineNumber() + ": "
                                            + d.getMessage(Locale.ROOT))
                                    .collect(Collectors.joining()));
        }
        return classes;
    }

    /** Runs QuickStart as the README's {@code java -cp} line does; returns what it wrote to the terminal. */
    private static String runQuickStart(Path project, Path classes, String url, String user, String password)
            throws IOException, InterruptedException, URISyntaxException {
        List<Path> classPath = new ArrayList<>();
        classPath.add(classes);
        classPath.addAll(compileClassPath());
        classPath.add(location(SimpleLogger.class)); // the runtime-scoped backend
        Path stdout = project.resolve("stdout.txt");
        Path stderr = project.resolve("stderr.txt");
        Process java = new ProcessBuilder(
                        Paths.get(System.getProperty("java.home"), "bin", "java")
                                .toString(),
                        "-cp",
                        classPath(classPath),
                        "QuickStart",
                        url,
                        user,
                        password)
                .directory(project.toFile())
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        if (!java.waitFor(60, TimeUnit.SECONDS)) {
            java.destroyForcibly();
            throw new AssertionError("QuickStart did not finish in 60 s:\n" + Files.readString(stderr));
        }
        String err = Files.readString(stderr, StandardCharsets.UTF_8)
                .lines()
                .filter(line -> !line.startsWith("Picked up JAVA_TOOL_OPTIONS")) // the JVM's, not the program's
                .map(line -> line + "\n")
                .collect(Collectors.joining());
        String out = Files.readString(stdout, StandardCharsets.UTF_8);
        assertEquals(0, java.exitValue(), "QuickStart's exit code; it wrote:\n" + err + out);
        return err + out;
    }

    /** The compile-scoped artifacts of the README's pom and what they bring: core, dialect, driver, slf4j-api. */
    private static List<Path> compileClassPath() throws URISyntaxException {
        return List.of(
                location(Baton.class),
                location(PostgresDialect.class),
                location(Driver.class),
                location(LoggerFactory.class));
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Paths.get(
                type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    private static String classPath(List<Path> entries) {
        return entries.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator));
    }

    /** The README's quick-start output block: the one that holds {@code Applied[id=1}. */
    private static String readmeOutput() {
        List<String> blocks = QuickStartTest.quickStartBlocks("").stream()
                .filter(b -> b.contains("Applied[id=1"))
                .toList();
        assertEquals(1, blocks.size(), "one output block in the README's quick start");
        return blocks.get(0);
    }

    private static Element readmePom() {
        List<String> blocks = QuickStartTest.quickStartBlocks("xml");
        assertEquals(1, blocks.size(), "one xml block, the whole pom.xml, in the README's quick start");
        return xml(blocks.get(0));
    }

    private static String withDatabase(String jdbcUrl, String database) {
        Matcher url =
                Pattern.compile("^(jdbc:postgresql://[^/?]+)(/[^?]*)?(\\?.*)?$").matcher(jdbcUrl);
        assertTrue(url.matches(), "a PostgreSQL URL: " + jdbcUrl);
        return url.group(1) + "/" + database + (url.group(3) == null ? "" : url.group(3));
    }

    /**
     * groupId:artifactId:version:scope[:type] of each dependency of the element's {@code <dependencies>} (the project's
     * or its {@code <dependencyManagement>}'s); a version the BOM manages is {@code (managed)}.
     */
    private static List<String> dependencies(Element pom) {
        Element dependencies = child(pom, "dependencies");
        assertTrue(dependencies != null, "the README's pom.xml has <dependencies>");
        List<String> out = new ArrayList<>();
        NodeList nodes = dependencies.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            if (nodes.item(i) instanceof Element d) {
                String scope = text(d, "scope");
                String version = text(d, "version");
                String type = text(d, "type");
                out.add(text(d, "groupId") + ":" + text(d, "artifactId") + ":"
                        + (version == null ? "(managed)" : version) + ":" + (scope == null ? "compile" : scope)
                        + (type == null ? "" : ":" + type));
            }
        }
        return out;
    }

    /** Parses an XML document (no DTDs, no external entities); fails the test when it is not well-formed. */
    private static Element xml(String text) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
            factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
            Document doc = factory.newDocumentBuilder().parse(new InputSource(new StringReader(text)));
            return doc.getDocumentElement();
        } catch (Exception e) {
            throw new AssertionError("not a well-formed pom.xml: " + e.getMessage() + "\n" + text, e);
        }
    }

    private static Element child(Element parent, String name) {
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node n = nodes.item(i);
            if (n instanceof Element e && e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static String text(Element parent, String name) {
        Element e = child(parent, name);
        return e == null ? null : e.getTextContent().strip();
    }
}
