package dev.baton.testservers;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * Another JVM running a main class with the current classpath, for tests with several worker processes (a crash
 * is {@link #kill()}, which is {@code kill -9}).
 *
 * <p>The child's standard output and standard error are merged and collected line by line by a daemon thread:
 * read them with {@link #outputLines()}, wait for one with {@link #awaitLine(Predicate, Duration)}, or follow them
 * with a listener given to {@link Builder#onLine(Consumer)}. Closing kills the process if it still runs.
 *
 * <pre>{@code
 * try (JvmProcess worker = JvmProcess.builder(WorkerMain.class)
 *         .args(db.jdbcUrl(), queueName)
 *         .env("BATON_WORKER_ID", "w1")
 *         .start()) {
 *     worker.awaitLine(line -> line.equals("READY"), Duration.ofSeconds(30)).orElseThrow();
 *     ...
 *     worker.kill();
 * }
 * }</pre>
 */
public final class JvmProcess implements AutoCloseable {
    private static final int MAX_COMMAND_LINE_CLASSPATH = 32 * 1024;

    private final String name;
    private final Process process;
    private final Thread reader;
    private final List<String> lines = new ArrayList<>();
    private final Consumer<String> listener;
    private final Path argumentFile;

    private JvmProcess(Builder builder) throws IOException {
        this.name = builder.name;
        this.listener = builder.listener;
        List<String> command = new ArrayList<>();
        command.add(javaExecutable());
        command.addAll(builder.jvmArgs);
        String classpath = absoluteClasspath();
        if (classpath.length() > MAX_COMMAND_LINE_CLASSPATH) {
            // A long classpath goes through an argument file (java @file), past the command-line length limit.
            argumentFile = Files.createTempFile("baton-jvm-", ".args");
            Files.writeString(argumentFile, "-cp \"" + classpath.replace("\\", "\\\\") + "\"\n");
            command.add("@" + argumentFile);
        } else {
            argumentFile = null;
            command.add("-cp");
            command.add(classpath);
        }
        command.add(builder.mainClass);
        command.addAll(builder.args);
        ProcessBuilder processBuilder = new ProcessBuilder(command).redirectErrorStream(true);
        if (builder.directory != null) {
            processBuilder.directory(builder.directory.toFile());
        }
        processBuilder.environment().putAll(builder.env);
        try {
            this.process = processBuilder.start();
        } catch (IOException e) {
            if (argumentFile != null) {
                Files.deleteIfExists(argumentFile);
            }
            throw e;
        }
        this.reader = new Thread(this::readOutput, "jvm-process-" + name + "-" + process.pid());
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /**
     * Starts describing a JVM that runs the given main class.
     *
     * @param mainClass a class with a {@code public static void main(String[])}, on the current classpath
     * @return a builder
     */
    public static Builder builder(Class<?> mainClass) {
        return new Builder(Objects.requireNonNull(mainClass, "mainClass").getName());
    }

    /**
     * Starts describing a JVM that runs the named main class.
     *
     * @param mainClassName the binary name of a class on the current classpath
     * @return a builder
     */
    public static Builder builder(String mainClassName) {
        return new Builder(Objects.requireNonNull(mainClassName, "mainClassName"));
    }

    /**
     * Starts a JVM running the main class with arguments, the current classpath and environment.
     *
     * @param mainClass the class to run
     * @param args its arguments
     * @return the running process
     * @throws IOException when the process cannot be started
     */
    public static JvmProcess start(Class<?> mainClass, String... args) throws IOException {
        return builder(mainClass).args(args).start();
    }

    /**
     * The operating system's process id.
     *
     * @return the pid
     */
    public long pid() {
        return process.pid();
    }

    /**
     * Whether the process still runs.
     *
     * @return {@code true} until it exits or is killed
     */
    public boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Waits for the process to exit, and then for its remaining output to be read.
     *
     * @param timeout how long to wait at most
     * @return {@code true} if it exited in time
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public boolean waitFor(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        if (!process.waitFor(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
            return false;
        }
        reader.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        return true;
    }

    /**
     * The exit code of a process that has exited.
     *
     * @return the exit code (137 after {@link #kill()} on Linux: killed by signal 9)
     * @throws IllegalThreadStateException when it still runs
     */
    public int exitValue() {
        return process.exitValue();
    }

    /**
     * The lines the process printed so far (standard output and standard error, merged).
     *
     * @return a copy
     */
    public List<String> outputLines() {
        synchronized (lines) {
            return List.copyOf(lines);
        }
    }

    /**
     * Everything printed so far, one line per line.
     *
     * @return the output text
     */
    public String output() {
        return String.join("\n", outputLines());
    }

    /**
     * Waits until the process prints a line that matches (one printed earlier counts too).
     *
     * @param matcher what the line must satisfy
     * @param timeout how long to wait at most
     * @return the first matching line, or empty if none came in time or the process ended without one
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public Optional<String> awaitLine(Predicate<String> matcher, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (lines) {
            int checked = 0;
            while (true) {
                for (; checked < lines.size(); checked++) {
                    if (matcher.test(lines.get(checked))) {
                        return Optional.of(lines.get(checked));
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || (!reader.isAlive() && checked == lines.size())) {
                    return Optional.empty();
                }
                TimeUnit.NANOSECONDS.timedWait(lines, Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)));
            }
        }
    }

    /**
     * Kills the process at once ({@code destroyForcibly}, which is {@code kill -9} on Linux: no shutdown hooks,
     * no cleanup, like a crash) and waits up to 10 seconds for it to be gone.
     */
    public void kill() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
            reader.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the process if it still runs, and removes any temporary file made to start it. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
        if (argumentFile != null) {
            try {
                Files.deleteIfExists(argumentFile);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Describes the process.
     *
     * @return name, pid and whether it runs
     */
    @Override
    public String toString() {
        return "JvmProcess[" + name + ", pid " + process.pid() + (process.isAlive() ? ", running]" : ", exited]");
    }

    private void readOutput() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (lines) {
                    lines.add(line);
                    lines.notifyAll();
                }
                if (listener != null) {
                    try {
                        listener.accept(line);
                    } catch (RuntimeException e) {
                        // a listener's failure must not stop the collection of output
                    }
                }
            }
        } catch (IOException e) {
            // the stream closes when the process is killed
        } finally {
            synchronized (lines) {
                lines.notifyAll();
            }
        }
    }

    /** This JVM's classpath with absolute entries, so that a child with another working directory finds them. */
    private static String absoluteClasspath() {
        String[] entries = System.getProperty("java.class.path").split(Pattern.quote(File.pathSeparator));
        StringBuilder classpath = new StringBuilder();
        for (String entry : entries) {
            if (entry.isEmpty()) {
                continue;
            }
            if (classpath.length() > 0) {
                classpath.append(File.pathSeparatorChar);
            }
            classpath.append(Paths.get(entry).toAbsolutePath());
        }
        return classpath.toString();
    }

    private static String javaExecutable() {
        Path fromHome = Paths.get(System.getProperty("java.home"), "bin", isWindows() ? "java.exe" : "java");
        if (Files.isExecutable(fromHome)) {
            return fromHome.toString();
        }
        return ProcessHandle.current()
                .info()
                .command()
                .orElseThrow(() -> new IllegalStateException("cannot find the java executable of this JVM"));
    }

    private static boolean isWindows() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
    }

    /** Describes a JVM to start. Not thread-safe. */
    public static final class Builder {
        private final String mainClass;
        private final List<String> args = new ArrayList<>();
        private final List<String> jvmArgs = new ArrayList<>();
        private final Map<String, String> env = new LinkedHashMap<>();
        private Consumer<String> listener;
        private Path directory;
        private String name;

        private Builder(String mainClass) {
            this.mainClass = mainClass;
            this.name = mainClass.substring(mainClass.lastIndexOf('.') + 1);
        }

        /**
         * Adds arguments for the main method.
         *
         * @param args the arguments, in order
         * @return this builder
         */
        public Builder args(String... args) {
            this.args.addAll(Arrays.asList(args));
            return this;
        }

        /**
         * Adds options for the JVM itself, such as {@code -Xmx256m} or {@code -Dkey=value}.
         *
         * @param jvmArgs the options, in order
         * @return this builder
         */
        public Builder jvmArgs(String... jvmArgs) {
            this.jvmArgs.addAll(Arrays.asList(jvmArgs));
            return this;
        }

        /**
         * Sets an environment variable of the child (it inherits this JVM's environment otherwise).
         *
         * @param name the variable
         * @param value its value
         * @return this builder
         */
        public Builder env(String name, String value) {
            env.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /**
         * Follows the output: the listener sees each line as it is read, on the reader thread. Exceptions it
         * throws are ignored.
         *
         * @param listener called once per line
         * @return this builder
         */
        public Builder onLine(Consumer<String> listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Sets the working directory of the child (this JVM's otherwise).
         *
         * @param directory the directory
         * @return this builder
         */
        public Builder directory(Path directory) {
            this.directory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * Names the process in thread names and {@link JvmProcess#toString()}; the main class's simple name
         * otherwise.
         *
         * @param name a label
         * @return this builder
         */
        public Builder name(String name) {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * Starts the JVM.
         *
         * @return the running process; close it (or kill it) when done
         * @throws IOException when it cannot be started
         */
        public JvmProcess start() throws IOException {
            return new JvmProcess(this);
        }
    }
}
