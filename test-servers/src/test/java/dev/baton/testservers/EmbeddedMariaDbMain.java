package dev.baton.testservers;

/** A child JVM for {@link OrphanCleanupTest}: starts the embedded MariaDB, says READY, and waits to be killed. */
public final class EmbeddedMariaDbMain {
    private EmbeddedMariaDbMain() {}

    public static void main(String[] args) throws InterruptedException {
        TestDatabase db = TestDatabases.mariadbEmbedded();
        System.out.println("READY " + db.jdbcUrl());
        System.out.flush();
        Thread.sleep(600_000);
    }
}
