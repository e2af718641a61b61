mkdir Greetings
cd Greetings
swift package init --type executable --name Greetings
