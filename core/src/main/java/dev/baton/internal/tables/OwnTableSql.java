package dev.baton.internal.tables;

import dev.baton.BatonException;
import dev.baton.InvalidIdentifierException;
import dev.baton.UnsupportedDatabaseException;
import dev.baton.internal.values.Identifiers;
import dev.baton.spi.Dialect;
import dev.baton.spi.OwnTableDialect.OwnTable;
import dev.baton.spi.SqlVocabulary;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The DDL of one of Baton's own tables, read from the files the dialect ships (its create file, {@link
 * dev.baton.spi.OwnTableDialect#ddlScript}, then its upgrades, {@link dev.baton.spi.OwnTableDialect#upgradeScripts})
 * and renamed for the table the caller chose. The files are the only copy of the DDL: Flyway or Liquibase run them as
 * they are, Baton runs them statement by statement.
 *
 * <p>Renaming works on whole quoted identifiers, read with the dialect's own quotes: one equal to the default table
 * name becomes the quoted (possibly schema-qualified) table, and one of the form {@code <default name>_<suffix>}
 * (an index or constraint, which lives in the table's schema) becomes {@code <bare table>_<suffix>}. Text in string
 * literals and {@code --} comments is never renamed, and a file that names the table without quotes is refused rather
 * than half renamed.
 */
public final class OwnTableSql {
    private OwnTableSql() {}

    /**
     * The statements that create {@code which} under the name {@code table}, without trailing semicolons: those of
     * its create file, then those of its upgrade files.
     *
     * @throws InvalidIdentifierException if {@code table} is not a plain identifier, or too long for a derived name
     * @throws UnsupportedDatabaseException if the dialect ships no DDL for the table
     */
    public static List<String> ddl(Dialect dialect, OwnTable which, String table) {
        String quotedTable = Identifiers.quoteTable(dialect, table);
        String[] parts = Identifiers.splitTable(table);
        String bare = parts[parts.length - 1];
        URL script = dialect.ownTables()
                .ddlScript(which)
                .orElseThrow(() ->
                        new UnsupportedDatabaseException("dialect " + dialect.name() + " ships no " + which.script()));
        List<String> all =
                new ArrayList<>(statements(read(script), dialect, which.defaultName(), quotedTable, bare, table));
        for (URL upgrade : dialect.ownTables().upgradeScripts(which)) {
            all.addAll(statements(read(upgrade), dialect, which.defaultName(), quotedTable, bare, table));
        }
        return List.copyOf(all);
    }

    static String read(URL script) {
        try (InputStream in = script.openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new BatonException("cannot read " + script, e);
        }
    }

    /**
     * Splits {@code script} at the {@code ;} that end its statements and renames its identifiers, in one pass that
     * knows the dialect's identifier quotes, string literals and {@code --} comments.
     */
    static List<String> statements(
            String script, Dialect dialect, String defaultName, String quotedTable, String bare, String table) {
        SqlVocabulary sql = dialect.sql();
        String probe = sql.quote("x");
        String open = probe.substring(0, probe.indexOf('x'));
        String close = probe.substring(probe.indexOf('x') + 1);
        Pattern unquoted = Pattern.compile("\\b" + Pattern.quote(defaultName) + "\\w*\\b");
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        StringBuilder plain = new StringBuilder(); // the statement's text outside identifiers and literals
        int i = 0;
        while (i < script.length()) {
            char ch = script.charAt(i);
            if (script.startsWith("--", i)) {
                int end = script.indexOf('\n', i);
                i = end < 0 ? script.length() : end;
            } else if (ch == '\'') {
                int end = i + 1;
                while (end < script.length()) {
                    if (script.charAt(end) == '\'') {
                        if (end + 1 < script.length() && script.charAt(end + 1) == '\'') {
                            end += 2; // '' is a quote inside the literal
                            continue;
                        }
                        break;
                    }
                    end++;
                }
                current.append(script, i, Math.min(end + 1, script.length()));
                i = end + 1;
            } else if (!open.isEmpty() && script.startsWith(open, i)) {
                int end = script.indexOf(close, i + open.length());
                if (end < 0) {
                    throw new IllegalStateException("unterminated identifier in the DDL of " + defaultName);
                }
                String name = script.substring(i + open.length(), end);
                current.append(renamed(name, sql, dialect, defaultName, quotedTable, bare, table));
                i = end + close.length();
            } else if (ch == ';') {
                add(statements, current, plain, unquoted, defaultName);
                i++;
            } else {
                current.append(ch);
                plain.append(ch);
                i++;
            }
        }
        add(statements, current, plain, unquoted, defaultName);
        return List.copyOf(statements);
    }

    private static String renamed(
            String name,
            SqlVocabulary sql,
            Dialect dialect,
            String defaultName,
            String quotedTable,
            String bare,
            String table) {
        if (name.equals(defaultName)) {
            return quotedTable;
        }
        if (name.startsWith(defaultName + "_")) {
            String suffix = name.substring(defaultName.length());
            int max = dialect.traits().maxIdentifierLength() - suffix.length();
            if (bare.length() > max) {
                throw new InvalidIdentifierException(
                        table,
                        "too long for its derived name " + bare + suffix + ": at most " + max + " characters on "
                                + dialect.name());
            }
            return Identifiers.quote(dialect, bare + suffix);
        }
        return sql.quote(name);
    }

    private static void add(
            List<String> statements, StringBuilder current, StringBuilder plain, Pattern unquoted, String defaultName) {
        Matcher m = unquoted.matcher(plain);
        if (m.find()) {
            throw new IllegalStateException(
                    "the DDL of " + defaultName + " names " + m.group() + " without quotes, so it cannot be renamed");
        }
        String statement = current.toString().strip();
        if (!statement.isEmpty()) {
            statements.add(statement);
        }
        current.setLength(0);
        plain.setLength(0);
    }
}
