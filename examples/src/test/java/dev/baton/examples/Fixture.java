package dev.baton.examples;

import dev.baton.Baton;
import dev.baton.examples.support.DatabaseKind;
import dev.baton.examples.support.ExampleSchema;
import dev.baton.testservers.TestDatabase;
import dev.baton.testservers.TestDatabases;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jooq.DSLContext;

/** One test's copy of the example schema on one server, with Baton and jOOQ over it; closing drops the tables. */
public final class Fixture implements AutoCloseable {
    /** The server. */
    public final TestDatabase db;
    /** Its shared pool. */
    public final DataSource dataSource;
    /** The kind of database. */
    public final DatabaseKind kind;
    /** This test's copy of the schema. */
    public final ExampleSchema schema;
    /** Baton on the pool. */
    public final Baton baton;
    /** jOOQ on the pool, rendering this copy's table names. */
    public final DSLContext dsl;

    private Fixture(TestDatabase db) {
        this.db = db;
        this.dataSource = db.dataSource();
        this.kind = DatabaseKind.of(dataSource);
        this.schema = ExampleSchema.withSuffix(TestDatabases.uniqueName("x").substring(2));
        schema.create(dataSource);
        this.baton = Baton.using(dataSource);
        this.dsl = schema.dsl(dataSource, kind);
    }

    /** Resolves the server (the test is skipped or failed if it is unavailable) and creates a schema copy. */
    public static Fixture on(Supplier<TestDatabase> server) {
        return new Fixture(server.get());
    }

    /** A table of this copy. */
    public String table(String name) {
        return schema.table(name);
    }

    @Override
    public void close() {
        schema.drop(dataSource);
    }
}
