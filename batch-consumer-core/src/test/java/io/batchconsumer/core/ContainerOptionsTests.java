package io.batchconsumer.core;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.core.options.OptionDescriptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The defaults (those of the property table in docs/getting-started.md) and the validation of every option.
 */
class ContainerOptionsTests {

	@Test
	void defaultsAreThoseOfTheDesign() {
		ContainerOptions options = ContainerOptions.builder("orders").topics("orders").build();
		assertThat(options.threadSize()).isEqualTo(10);
		assertThat(options.consumerBatchSize()).isEqualTo(10);
		assertThat(options.pullBatchSize()).isEqualTo(32);
		assertThat(options.pullInterval()).isZero();
		assertThat(options.ordering()).isEqualTo(Ordering.KEY);
		assertThat(options.mode()).isEqualTo(ConsumptionMode.CLUSTERING);
		assertThat(options.pullThresholdForQueue()).isEqualTo(1000);
		assertThat(options.pullThresholdSizeForQueue()).isEqualTo(100L * 1024 * 1024);
		assertThat(options.maxSpan()).isEqualTo(2000);
		assertThat(options.suspend()).isEqualTo(Duration.ofMillis(50));
		assertThat(options.commitInterval()).isEqualTo(Duration.ofMillis(100));
		assertThat(options.retryMaxAttempts()).isEqualTo(3);
		assertThat(options.retryBackoff()).isEqualTo(Duration.ofMillis(100));
		assertThat(options.retryMultiplier()).isEqualTo(2.0);
		assertThat(options.retryMaxBackoff()).isEqualTo(Duration.ofSeconds(10));
		assertThat(options.deadLetterEnabled()).isTrue();
		assertThat(options.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
	}

	@Test
	void backOffGrowsByTheMultiplierUpToTheMaximum() {
		ContainerOptions options = ContainerOptions.builder("orders").topics("orders").build();
		assertThat(options.backoffBefore(1)).isEqualTo(Duration.ofMillis(100));
		assertThat(options.backoffBefore(2)).isEqualTo(Duration.ofMillis(200));
		assertThat(options.backoffBefore(4)).isEqualTo(Duration.ofMillis(800));
		assertThat(options.backoffBefore(50)).isEqualTo(Duration.ofSeconds(10));
	}

	static Stream<Arguments> badValues() {
		return Stream.of(bad("thread-size", (b) -> b.threadSize(0)), bad("consumer-batch-size", (b) -> b.consumerBatchSize(-1)),
				bad("pull-batch-size", (b) -> b.pullBatchSize(0)),
				bad("flow-control.pull-threshold-for-queue", (b) -> b.pullThresholdForQueue(0)),
				bad("flow-control.pull-threshold-size-for-queue", (b) -> b.pullThresholdSizeForQueue(-5)),
				bad("flow-control.max-span", (b) -> b.maxSpan(0)),
				bad("flow-control.suspend", (b) -> b.suspend(Duration.ofMillis(-1))),
				bad("pull-interval", (b) -> b.pullInterval(null)),
				bad("commit.interval", (b) -> b.commitInterval(Duration.ofSeconds(-1))),
				bad("retry.max-attempts", (b) -> b.retryMaxAttempts(0)),
				bad("retry.backoff", (b) -> b.retryBackoff(Duration.ofMillis(-1))),
				bad("retry.multiplier", (b) -> b.retryMultiplier(0.5)),
				bad("retry.max-backoff", (b) -> b.retryMaxBackoff(Duration.ofMillis(1))),
				bad("shutdown-timeout", (b) -> b.shutdownTimeout(Duration.ofSeconds(-3))),
				bad("retry.not-retryable", (b) -> b.retryNotRetryable(List.of("com.example.NoSuchException"))),
				bad("retry.not-retryable", (b) -> b.retryNotRetryable(List.of("java.lang.String"))),
				bad("retry.not-retryable", (b) -> b.retryNotRetryable(List.of(" "))),
				bad("async.timeout", (b) -> b.asyncTimeout(Duration.ZERO)),
				bad("topics", (b) -> b.topics(" ")), bad("group", (b) -> b.group("")));
	}

	private static Arguments bad(String option, UnaryOperator<ContainerOptions.Builder> change) {
		return Arguments.of(option, change);
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badValues")
	void aBadValueCarriesTheKeyOfItsOptionAsData(String option, UnaryOperator<ContainerOptions.Builder> change) {
		ContainerOptions.Builder builder = ContainerOptions.builder("orders").topics("orders");
		assertThatExceptionOfType(InvalidOptionException.class).isThrownBy(() -> change.apply(builder).build())
			.satisfies((ex) -> {
				assertThat(ex.option()).isEqualTo(option);
				assertThat(ex.getMessage()).isEqualTo(option + " " + ex.reason());
			});
	}

	@Test
	void everyOptionOfTheTableStartsAtItsDefaultAndReadsBack() {
		ContainerOptions options = ContainerOptions.builder("orders").topics("orders").build();
		for (OptionDescriptor<?> option : OptionDescriptor.all()) {
			if (option != OptionDescriptor.ID && option != OptionDescriptor.TOPICS) {
				assertThat((Object) option.read(options)).as(option.key()).isEqualTo(option.defaultValue());
			}
		}
		assertThat(options.toBuilder().build()).isEqualTo(options);
	}

	@Test
	void everyDescriptorIsInTheTable() throws IllegalAccessException {
		List<OptionDescriptor<?>> declared = new ArrayList<>();
		for (Field field : OptionDescriptor.class.getDeclaredFields()) {
			if (Modifier.isStatic(field.getModifiers()) && Modifier.isPublic(field.getModifiers())
					&& field.getType() == OptionDescriptor.class) {
				declared.add((OptionDescriptor<?>) field.get(null));
			}
		}
		assertThat(OptionDescriptor.all()).as("OptionDescriptor.all() (add a new descriptor to it)")
			.containsExactlyInAnyOrderElementsOf(declared);
	}

	@Test
	void theConfigurableOptionsAreThoseSomeLevelMaySetAndTheStartersTwoEachDescribed() {
		List<String> keys = new ArrayList<>();
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			keys.add(option.key());
			assertThat(option.description()).as(option.key() + ": its description (the IDE shows it)").isNotBlank();
		}
		assertThat(keys).doesNotContain("id", "poll-timeout")
			.contains("thread-size", "topics", "tags", "retry.levels")
			.endsWith("auto-startup", "processing")
			.hasSize(OptionDescriptor.all().size()); // id and poll-timeout out, auto-startup and processing in
		assertThat(OptionCatalog.find("flow-control.max-span")).isSameAs(OptionDescriptor.MAX_SPAN);
		assertThat(OptionCatalog.find("processing")).isSameAs(OptionCatalog.PROCESSING);
		assertThat(OptionCatalog.find("poll-timeout")).isNull();
	}

	@Test
	void textFromAnAnnotationIsConvertedOrRejectedNamingTheOption() {
		assertThat(OptionDescriptor.THREAD_SIZE.convert(" 4 ")).isEqualTo(4);
		assertThat(OptionDescriptor.ORDERING.convert("partition")).isEqualTo(Ordering.PARTITION);
		assertThat(OptionDescriptor.DEAD_LETTER_ENABLED.convert("FALSE")).isFalse();
		assertThat(OptionDescriptor.PULL_THRESHOLD_SIZE_FOR_QUEUE.convert(5)).isEqualTo(5L);
		assertThatExceptionOfType(InvalidOptionException.class).isThrownBy(() -> OptionDescriptor.THREAD_SIZE.convert("many"))
			.withMessage("thread-size must be a whole number but was 'many'");
		assertThatExceptionOfType(InvalidOptionException.class).isThrownBy(() -> OptionDescriptor.MODE.convert("all"))
			.satisfies((ex) -> assertThat(ex.option()).isEqualTo("mode"))
			.withMessage("mode must be one of clustering, broadcast but was 'all'");
		assertThat(OptionDescriptor.CONSUMER_BATCH_SIZE.attributeName()).isEqualTo("consumerBatchSize");
	}

	@ParameterizedTest(name = "{0}")
	@MethodSource("badValues")
	void aBadValueIsRejectedNamingTheOption(String option, UnaryOperator<ContainerOptions.Builder> change) {
		ContainerOptions.Builder builder = ContainerOptions.builder("orders").topics("orders");
		assertThatIllegalArgumentException().isThrownBy(() -> change.apply(builder).build())
			.withMessageStartingWith(option);
	}

	@Test
	void anIdThatCannotNameAThreadIsRejected() {
		assertThatIllegalArgumentException().isThrownBy(() -> ContainerOptions.builder("a b").topics("t").build())
			.withMessageStartingWith("id");
	}

	@Test
	void enumsParseTheirPropertySpellingAndNameTheAllowedValues() {
		assertThat(Ordering.parse("Partition")).isEqualTo(Ordering.PARTITION);
		assertThat(ConsumptionMode.parse("broadcast")).isEqualTo(ConsumptionMode.BROADCAST);
		assertThatIllegalArgumentException().isThrownBy(() -> Ordering.parse("random"))
			.withMessage("ordering must be one of unordered, key, partition but was 'random'");
	}

}
