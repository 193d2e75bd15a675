package dev.baton.testkit.compat;

import dev.baton.spi.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Collectors;

/** The DDL resources a dialect module ships for Baton's own tables, and their expected text. */
final class DdlScripts {
    private DdlScripts() {}

    /** The resource {@code file} in the dialect's package, e.g. {@code dev/baton/postgres/V2__baton_inbox.sql}. */
    static String resource(Dialect dialect, String file) {
        String path = dialect.getClass().getPackageName().replace('.', '/') + "/" + file;
        try (InputStream in = dialect.getClass().getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new AssertionError("the dialect module ships no resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The script text: the statements, each ended by {@code ;}, separated by a blank line. */
    static String script(List<String> statements) {
        return String.join(";\n\n", statements) + ";\n";
    }

    /** The script without its {@code --} comment lines and the blank lines that lead it. */
    static String withoutComments(String script) {
        String body = script.lines().filter(l -> !l.startsWith("--")).collect(Collectors.joining("\n")) + "\n";
        return body.replaceFirst("^\\n+", "");
    }
}
