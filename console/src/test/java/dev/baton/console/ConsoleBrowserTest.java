package dev.baton.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.baton.testkit.DatabaseSuite;
import dev.baton.testkit.compat.Sync;
import dev.baton.testservers.TestServer;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.WindowType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in headless Chromium, driven by Selenium, on the two local servers: the numbers on the page, a requeue
 * clicked in two tabs, an unknown send resolved; the screenshots of {@code docs/src/console.md} are taken here (on
 * PostgreSQL).
 */
@ParameterizedClass(name = "{0}")
@EnumSource(
        value = TestServer.class,
        names = {"POSTGRES_LOCAL", "MARIADB_LOCAL"})
class ConsoleBrowserTest {
    @Parameter
    TestServer server;

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    @Nested
    class Browser extends DatabaseSuite {
        private WebDriver driver;
        private ConsoleFixture f;

        @Override
        protected void setUp() {
            boolean present = new File(CHROMIUM).canExecute() && new File(CHROMEDRIVER).canExecute();
            if (!present && System.getenv("CI") != null) {
                throw new AssertionError(
                        "CI: " + CHROMIUM + " and " + CHROMEDRIVER + " are missing (.ci/run installs them)");
            }
            Assumptions.assumeTrue(present, "headless Chromium is not installed (Debian: chromium chromium-driver)");
            ChromeOptions options = new ChromeOptions()
                    .setBinary(CHROMIUM)
                    .addArguments(
                            "--headless=new",
                            "--no-sandbox",
                            "--disable-dev-shm-usage",
                            "--disable-gpu",
                            "--window-size=1280,900",
                            "--force-device-scale-factor=1");
            ChromeDriverService service = new ChromeDriverService.Builder()
                    .usingDriverExecutable(new File(CHROMEDRIVER))
                    .usingAnyFreePort()
                    .build();
            driver = new ChromeDriver(service, options);
            driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20));
        }

        @Override
        protected void tearDown() {
            if (driver != null) {
                driver.quit();
            }
        }

        @AfterEach
        void drop() {
            if (f != null) {
                f.close();
            }
            if (driver != null) {
                // back to one tab without the test cookie
                List<String> handles = new ArrayList<>(driver.getWindowHandles());
                for (int i = 1; i < handles.size(); i++) {
                    driver.switchTo().window(handles.get(i)).close();
                }
                driver.switchTo().window(handles.get(0));
                driver.manage().deleteAllCookies();
            }
        }

        private void open(String user, int dead) {
            open(user, dead, (b, fx) -> {});
        }

        private void open(
                String user, int dead, java.util.function.BiConsumer<BatonConsole.Builder, ConsoleFixture> more) {
            f = new ConsoleFixture(database(), "cn_console", true, 50, false, null, more);
            f.seed(dead);
            f.console.sample();
            driver.get(f.base());
            if (user != null) {
                driver.manage().addCookie(new Cookie(ConsoleFixture.USER_COOKIE, user, "/"));
                driver.get(f.base());
            }
        }

        private void screenshot(String name) throws IOException {
            if (server != TestServer.POSTGRES_LOCAL) {
                return; // one set of pictures for the docs
            }
            Path dir = Path.of("").toAbsolutePath();
            while (dir != null && !Files.isDirectory(dir.resolve("docs/src"))) {
                dir = dir.getParent();
            }
            if (dir == null) {
                throw new AssertionError("no docs/src above " + Path.of("").toAbsolutePath());
            }
            Path images = Files.createDirectories(dir.resolve("docs/src/images"));
            byte[] png = ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES);
            Files.write(images.resolve("console-" + name + ".png"), png);
        }

        /** The element once the page that holds it has loaded (a click that submits a form does not wait for it). */
        private WebElement waitFor(By by) {
            return new WebDriverWait(driver, Duration.ofSeconds(10))
                    .until(ExpectedConditions.presenceOfElementLocated(by));
        }

        private long cell(String key) {
            return Long.parseLong(driver.findElement(By.cssSelector("#queues td[data-k='" + key + "']"))
                    .getText());
        }

        @Test
        void anAnonymousBrowserSeesNothing() {
            open(null, 4);
            String text = driver.findElement(By.tagName("body")).getText();
            assertTrue(text.contains("401"), text);
            assertFalse(driver.getPageSource().contains(f.table));
        }

        @Test
        void thePageShowsTheDatabasesCountsAndInertHostileTexts() throws IOException {
            open("operator", 8);
            Map<Sync, Long> db = f.counts();
            assertEquals(db.get(Sync.FAILED), cell("dead"));
            assertEquals(db.get(Sync.UNKNOWN), cell("unknown"));
            assertEquals(db.get(Sync.PENDING), cell("eligible") + cell("waiting"));
            assertEquals(db.get(Sync.PROCESSING), cell("in-flight") + cell("expired"));
            assertEquals(
                    "Needs attention: " + f.queue.name() + ": 8 dead, 2 unknown sends.",
                    driver.findElement(By.id("attention")).getText());
            screenshot("overview");
            driver.findElement(By.linkText(f.queue.name())).click();
            // the hostile texts are shown as text: no element was made of them, and no script ran (no alert open)
            assertTrue(driver.findElements(By.cssSelector("#dead img")).isEmpty());
            assertTrue(driver.findElement(By.id("dead")).getText().contains("<script>alert(\"boom\")</script>"));
            assertEquals(
                    db.get(Sync.FAILED),
                    driver.findElements(By.cssSelector("#dead tr[data-id]")).size());
            screenshot("queue");
        }

        @Test
        void theOverviewSaysInWordsWhatNeedsAttentionAndRefreshesItself() {
            open("reader", 4);
            assertEquals(
                    "Needs attention: " + f.queue.name() + ": 4 dead, 2 unknown sends.",
                    driver.findElement(By.id("attention")).getText());
            assertTrue(driver.findElement(By.cssSelector("#queues tr.attention td"))
                    .getText()
                    .contains("Needs attention: 4 dead, 2 unknown sends"));
            driver.get(f.base() + "?refresh=5");
            assertTrue(driver.findElement(By.id("refresh")).getText().contains("refreshes itself every 5 s"));
            WebElement shown = driver.findElement(By.id("attention"));
            f.insert("d-new", Sync.FAILED, 3, "HTTP 500 from the receiver", "late");
            f.console.sample();
            // the test does not navigate: the page reloads itself (a meta refresh, no script under the CSP)
            new WebDriverWait(driver, Duration.ofSeconds(15)).until(ExpectedConditions.stalenessOf(shown));
            assertEquals(
                    "Needs attention: " + f.queue.name() + ": 5 dead, 2 unknown sends.",
                    waitFor(By.id("attention")).getText());
            assertTrue(driver.getCurrentUrl().endsWith("?refresh=5"), driver.getCurrentUrl());
            // its link to the queue keeps the interval, and the queue's page refreshes too
            // each wait reads the page the click led to (the page before it has a #refresh line too)
            WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(10));
            driver.findElement(By.linkText(f.queue.name())).click();
            wait.until(ExpectedConditions.urlContains("queue?"));
            assertTrue(driver.getCurrentUrl().contains("refresh=5"), driver.getCurrentUrl());
            wait.until(
                    ExpectedConditions.textToBePresentInElementLocated(By.id("refresh"), "refreshes itself every 5 s"));
            driver.findElement(By.linkText("stop refreshing")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("refresh"), "does not refresh itself"));
        }

        @Test
        void aRequeueClickedInTwoTabsMovesTheRowOnce() throws IOException {
            open("operator", 4);
            String queuePage = f.base() + "queue?q=" + f.queue.name();
            String row = "#dead tr[data-id='sd-003'] button";
            driver.get(queuePage);
            String first = driver.getWindowHandle();
            driver.findElement(By.cssSelector(row)).click();
            assertTrue(waitFor(By.id("confirm-text")).getText().contains("d-003"));
            screenshot("confirm");
            driver.switchTo().newWindow(WindowType.TAB);
            String second = driver.getWindowHandle();
            driver.get(queuePage);
            driver.findElement(By.cssSelector(row)).click();
            List<String> results = new ArrayList<>();
            for (String tab : List.of(first, second)) {
                driver.switchTo().window(tab);
                waitFor(By.xpath("//button[text()='Confirm']")).click();
                results.add(waitFor(By.id("result")).getText());
            }
            assertEquals(
                    1, results.stream().filter(r -> r.startsWith("Requeued")).count(), results.toString());
            assertEquals(
                    1,
                    results.stream()
                            .filter(r -> r.startsWith("Nothing done: dead row d-003 had been requeued already"))
                            .count(),
                    results.toString());
            assertEquals(Sync.PENDING, f.state("d-003"));
            assertEquals(2, f.console.recentActions().size());
        }

        @Test
        void reloadingAResultPageRepeatsNothing() {
            open("operator", 12);
            driver.get(f.base() + "queue?q=" + f.queue.name());
            long before = f.counts().get(Sync.FAILED);
            WebElement n = driver.findElement(By.name("n"));
            n.clear();
            n.sendKeys("2");
            driver.findElement(By.xpath("//button[text()='Requeue these many\u2026']"))
                    .click();
            waitFor(By.xpath("//button[text()='Confirm']")).click();
            waitFor(By.id("result"));
            assertEquals(before - 2, f.counts().get(Sync.FAILED));
            driver.navigate().refresh();
            waitFor(By.id("result"));
            driver.navigate().refresh();
            waitFor(By.id("result"));
            assertEquals(before - 2, f.counts().get(Sync.FAILED), "a reload requeued more rows");
            assertEquals(1, f.console.recentActions().size());
        }

        @Test
        void resolvingAnUnknownSendWorksAndIsAudited() throws IOException {
            open("operator", 4, (b, fx) -> b.referenceColumn(fx.queue.name(), "receiver_ref"));
            driver.get(f.base() + "queue?q=" + f.queue.name());
            var row = driver.findElement(By.cssSelector("#unknown tr[data-id='su-1']"));
            new Select(row.findElement(By.name("verdict"))).selectByValue("sent:COMPLETED");
            row.findElement(By.name("evidence")).sendKeys("receiver shows payment 4711 at 02:03");
            row.findElement(By.name("reference")).sendKeys("pay-4711");
            screenshot("resolve");
            row.findElement(By.tagName("button")).click();
            assertTrue(waitFor(By.id("confirm-text")).getText().contains("receiver shows payment 4711"));
            assertTrue(driver.findElement(By.id("confirm-text"))
                    .getText()
                    .contains("with the receiver's reference \"pay-4711\" (written to column receiver_ref)"));
            waitFor(By.xpath("//button[text()='Confirm']")).click();
            assertEquals(
                    "Resolved as sent: unknown send u-1 is COMPLETED now, with the receiver's reference \"pay-4711\""
                            + " in column receiver_ref.",
                    waitFor(By.id("result")).getText());
            assertEquals(Sync.COMPLETED, f.state("u-1"));
            ConsoleAction a = f.console.recentActions().get(0);
            assertEquals("alice-operator", a.principal());
            assertEquals("receiver shows payment 4711 at 02:03", a.evidence());
            driver.get(f.base());
            assertTrue(driver.findElement(By.id("audit")).getText().contains("receiver shows payment 4711"));
            screenshot("audit");
        }
    }
}
