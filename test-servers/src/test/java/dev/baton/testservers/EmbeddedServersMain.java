package dev.baton.testservers;

/**
 * A child JVM for {@link PerUserDirectoryTest}: starts both embedded servers, says {@code OK} for each, and exits
 * (its shutdown hooks stop them and delete their data directories).
 */
public final class EmbeddedServersMain {
    private EmbeddedServersMain() {}

    public static void main(String[] args) {
        for (TestServer server : new TestServer[] {TestServer.MARIADB_EMBEDDED, TestServer.POSTGRES_EMBEDDED}) {
            TestDatabase db = server.get();
            db.execute("SELECT 1");
            System.out.println("OK " + server + " as " + System.getProperty("user.name") + ": " + db);
        }
        System.out.flush();
        System.exit(0);
    }
}
