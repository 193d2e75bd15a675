package dev.baton.testservers;

/** A child JVM for {@link JvmProcessTest}: says READY, then sleeps until killed. */
public final class SleeperMain {
    private SleeperMain() {}

    public static void main(String[] args) throws InterruptedException {
        System.out.println("READY pid=" + ProcessHandle.current().pid());
        System.out.flush();
        Thread.sleep(600_000);
    }
}
