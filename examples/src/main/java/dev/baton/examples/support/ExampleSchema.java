package dev.baton.examples.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jooq.DSLContext;
import org.jooq.conf.MappedSchema;
import org.jooq.conf.MappedTable;
import org.jooq.conf.RenderMapping;
import org.jooq.conf.Settings;
import org.jooq.impl.DSL;

/**
 * The example schema ({@code dev/baton/examples/schema/postgres.sql} and {@code mariadb.sql}), created under its own
 * table names or under copies of them with a suffix, so that tests and demo runs can share one database: table
 * {@code orders} becomes {@code orders_<suffix>}, and so do the names of its indexes and constraints (which all start
 * with their table's name).
 *
 * <p>The jOOQ classes are generated for the plain names; {@link #dsl} renders them under this copy's names. Baton
 * takes table names as strings: pass it {@link #table(String)}.
 */
public final class ExampleSchema {
    /** The tables of the example schema, in creation order. */
    public static final List<String> TABLES = List.of(
            "orders",
            "payment_ledger",
            "accounts",
            "purchases",
            "balance_ledger",
            "naive_balance_ledger",
            "parking_bills",
            "parking_coupons",
            "tasks",
            "task_executions");

    private static final Pattern IDENTIFIER = Pattern.compile("\\b[a-z_][a-z0-9_]*\\b");
    private static final Pattern TARGET = Pattern.compile("^CREATE (?:TABLE|(?:UNIQUE )?INDEX \\w+ ON) (\\w+)");
    private static final Pattern SUFFIX = Pattern.compile("^[a-z0-9_]{0,20}$");

    static {
        // jOOQ prints a banner and tips on first use; the examples' output is about Baton.
        System.setProperty("org.jooq.no-logo", "true");
        System.setProperty("org.jooq.no-tips", "true");
    }

    private final String suffix;

    private ExampleSchema(String suffix) {
        this.suffix = suffix;
    }

    /** The schema under its own table names ({@code orders}, {@code parking_bills}, ...). */
    public static ExampleSchema plain() {
        return new ExampleSchema("");
    }

    /**
     * A copy under suffixed names: {@code orders_<suffix>}.
     *
     * @param suffix lower-case letters, digits and underscores, at most 20 characters
     */
    public static ExampleSchema withSuffix(String suffix) {
        if (!SUFFIX.matcher(Objects.requireNonNull(suffix, "suffix")).matches()) {
            throw new IllegalArgumentException("suffix must be [a-z0-9_]{0,20}, was '" + suffix + "'");
        }
        return new ExampleSchema(suffix);
    }

    /** The suffix, empty for the plain names. */
    public String suffix() {
        return suffix;
    }

    /** The name of a table of the example schema in this copy, e.g. {@code orders_ab12cd34}. */
    public String table(String name) {
        if (!TABLES.contains(name)) {
            throw new IllegalArgumentException("the example schema has no table " + name + "; tables: " + TABLES);
        }
        return rename(name);
    }

    /** The DDL of this copy for a database, statement by statement. */
    public List<String> ddl(DatabaseKind kind) {
        List<String> out = new ArrayList<>();
        for (String statement : statements(read(kind.schemaFile()))) {
            Matcher m = IDENTIFIER.matcher(statement);
            StringBuilder sb = new StringBuilder();
            while (m.find()) {
                m.appendReplacement(sb, Matcher.quoteReplacement(renameObject(m.group())));
            }
            m.appendTail(sb);
            out.add(sb.toString());
        }
        return out;
    }

    /** Creates the tables of this copy (fails if one exists). */
    public void create(DataSource dataSource) {
        create(dataSource, TABLES);
    }

    /** Creates some tables of this copy, with their indexes (fails if one exists). */
    public void create(DataSource dataSource, List<String> tables) {
        DatabaseKind kind = DatabaseKind.of(dataSource);
        List<String> wanted = new ArrayList<>();
        for (String t : tables) {
            wanted.add(table(t));
        }
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            for (String sql : ddl(kind)) {
                Matcher m = TARGET.matcher(sql);
                if (m.find() && wanted.contains(m.group(1))) {
                    s.execute(sql);
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("creating the example schema failed: " + e.getMessage(), e);
        }
    }

    /** Drops the tables of this copy that exist. */
    public void drop(DataSource dataSource) {
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            for (String t : TABLES) {
                s.execute("DROP TABLE IF EXISTS " + rename(t));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("dropping the example schema failed: " + e.getMessage(), e);
        }
    }

    /**
     * A jOOQ context on the data source that renders the generated tables under this copy's names.
     *
     * @param dataSource the pool; jOOQ borrows a connection per statement, or one per {@code transaction(...)}
     */
    public DSLContext dsl(DataSource dataSource) {
        return dsl(dataSource, DatabaseKind.of(dataSource));
    }

    /** Like {@link #dsl(DataSource)}, for a known kind of database (does not connect). */
    public DSLContext dsl(DataSource dataSource, DatabaseKind kind) {
        Settings settings = new Settings().withExecuteLogging(false);
        if (!suffix.isEmpty()) {
            MappedSchema schema = new MappedSchema().withInput("");
            for (String t : TABLES) {
                schema.withTables(new MappedTable().withInput(t).withOutput(rename(t)));
            }
            settings.withRenderMapping(new RenderMapping().withSchemata(schema));
        }
        return DSL.using(dataSource, kind.jooqDialect(), settings);
    }

    private String rename(String table) {
        return suffix.isEmpty() ? table : table + "_" + suffix;
    }

    /** A table name, or an index or constraint name that starts with a table name, gets the suffix. */
    private String renameObject(String identifier) {
        for (String t : TABLES) {
            if (identifier.equals(t) || identifier.startsWith(t + "_")) {
                return rename(identifier);
            }
        }
        return identifier;
    }

    /** The statements of a script: comments removed, split at each {@code ;} that ends a line. */
    static List<String> statements(String script) {
        StringBuilder body = new StringBuilder();
        for (String line : script.split("\n", -1)) {
            int comment = line.indexOf("--");
            body.append(comment < 0 ? line : line.substring(0, comment)).append('\n');
        }
        List<String> out = new ArrayList<>();
        for (String part : body.toString().split(";\\s*\n")) {
            String sql = part.strip();
            if (!sql.isEmpty()) {
                out.add(sql);
            }
        }
        return out;
    }

    /** The text of a schema file. */
    public static String read(String file) {
        String path = "/dev/baton/examples/schema/" + file;
        try (InputStream in = ExampleSchema.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "ExampleSchema[" + (suffix.isEmpty() ? "plain" : suffix) + "]";
    }
}
