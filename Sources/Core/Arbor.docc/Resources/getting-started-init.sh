git clone <Arbor's repository URL> arbor
mkdir Greetings
cd Greetings
swift package init --type executable --name Greetings
