package dev.baton.examples.support;

import dev.baton.Baton;
import java.io.PrintStream;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/**
 * What every example program shares: the database ({@code --jdbc-url URL [--user U] [--password P]}, or else an
 * embedded PostgreSQL), a fresh copy of the example schema, Baton and jOOQ over it, dropped at the end.
 */
public final class ExampleMain {
    private ExampleMain() {}

    /** An example's body. */
    @FunctionalInterface
    public interface Body {
        /** Runs the example on a fresh schema copy, printing what happens. */
        void run(Session session) throws Exception;
    }

    /**
     * One run of an example.
     *
     * @param dataSource the pool
     * @param schema the schema copy (table names via {@link ExampleSchema#table})
     * @param baton Baton on the pool
     * @param dsl jOOQ on the pool, rendering the copy's names
     * @param out where to print
     */
    public record Session(DataSource dataSource, ExampleSchema schema, Baton baton, DSLContext dsl, PrintStream out) {}

    /** Parses the arguments, opens the database, runs the body, cleans up, and exits. */
    public static void main(String title, String[] args, Body body) {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.io.zonky", "error");
        String url = null;
        String user = null;
        String password = "";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--jdbc-url" -> url = args[i + 1];
                case "--user" -> user = args[i + 1];
                case "--password" -> password = args[i + 1];
                default -> {
                    System.err.println("usage: [--jdbc-url URL [--user U] [--password P]]");
                    System.exit(2);
                }
            }
        }
        if (url != null && user == null) {
            user = url.startsWith("jdbc:postgresql:") ? "postgres" : "root";
        }
        System.out.println(title);
        try (ExampleDatabase db = ExampleDatabase.open(url, user, password)) {
            System.out.println("  on " + db.description());
            run(db.pool("example", 16), System.out, body);
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    /** Runs an example's body on a data source, in a fresh copy of the schema that is dropped afterwards. */
    public static void run(DataSource dataSource, PrintStream out, Body body) throws Exception {
        ExampleSchema schema = ExampleSchema.withSuffix("ex_" + Long.toString(System.nanoTime() % 1_000_000_000L, 36));
        schema.create(dataSource);
        try {
            body.run(new Session(dataSource, schema, Baton.using(dataSource), schema.dsl(dataSource), out));
        } finally {
            schema.drop(dataSource);
        }
    }
}
