package io.batchconsumer.spring.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanWrapperImpl;

import io.batchconsumer.core.options.OptionCatalog;
import io.batchconsumer.core.options.OptionDescriptor.Level;
import io.batchconsumer.core.options.OptionDescriptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link OptionTable} walks the option table over the property classes: the global properties
 * start at the table's defaults, a listener's start unset. {@link OptionSourcesTests} holds the
 * classes themselves, the annotation and the IDE metadata to the table.
 */
class OptionTableTests {

	@Test
	void theGlobalPropertiesStartAtTheDefaultsOfTheTable() {
		BatchConsumerProperties properties = new BatchConsumerProperties();
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			if (option.isSettableAt(Level.GLOBAL) && option != OptionDescriptor.GROUP) {
				assertThat((Object) option.convert(OptionTable.read(properties, option))).as(option.key())
					.isEqualTo(option.defaultValue());
			}
		}
		assertThat(properties.getGroup()).isNull();
	}

	@Test
	void aListenerStartsWithNothingSetAndHasAPropertyForEveryListenerOption() {
		BatchConsumerProperties.Listener listener = new BatchConsumerProperties.Listener();
		for (OptionDescriptor<?> option : OptionCatalog.all()) {
			if (option.isSettableAt(Level.LISTENER)) {
				assertThat(new BeanWrapperImpl(listener).isWritableProperty(OptionTable.path(option))).as(option.key())
					.isTrue();
				assertThat(OptionTable.read(listener, option)).as(option.key()).isNull();
			}
		}
	}

}
